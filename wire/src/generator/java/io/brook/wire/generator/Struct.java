package io.brook.wire.generator;

import java.util.List;

/** A generated class: the message itself ({@code top}) or one of its nested structs. */
final class Struct {
    final String name;
    final String path; // "ProduceRequest" or "ProduceRequest.TopicProduceData"
    final List<Field> fields;
    final boolean top;

    Struct(String name, String path, List<Field> fields, boolean top) {
        this.name = name;
        this.path = path;
        this.fields = fields;
        this.top = top;
    }

    Field field(String fieldName) {
        for (Field f : fields) {
            if (f.name.equals(fieldName)) {
                return f;
            }
        }
        return null;
    }
}
