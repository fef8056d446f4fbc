package io.brook.wire.generator;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** What the writers of one part of a message class share: the message, the output, the conditions. */
abstract class Section {
    final Message m;
    final Code c;
    final Conditions k;

    Section(Message m, Code c) {
        this.m = m;
        this.c = c;
        this.k = new Conditions(m);
    }

    /** The field's name in error messages, e.g. {@code "ProduceRequest.TopicProduceData.name"}. */
    static String fieldId(Struct s, Field f) {
        return "\"" + s.path + "." + f.javaName() + "\"";
    }

    /** Whether the struct's code needs the {@code flexible} local variable. */
    boolean needsFlexibleVariable(Struct s) {
        return k.hasFlexible() || s.fields.stream().anyMatch(f -> hasCompactForm(f.type));
    }

    static boolean hasCompactForm(Type t) {
        return switch (t.kind) {
            case STRING, BYTES, RECORDS, ARRAY -> true;
            default -> false;
        };
    }

    /** The tagged fields of a struct in tag order. */
    static List<Field> taggedSorted(Struct s) {
        TreeMap<Integer, Field> byTag = new TreeMap<>();
        for (Field f : s.fields) {
            if (f.tagged() && byTag.put(f.tag, f) != null) {
                throw new IllegalArgumentException(s.path + ": duplicate tag " + f.tag);
            }
        }
        return new ArrayList<>(byTag.values());
    }

    static String capitalize(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
