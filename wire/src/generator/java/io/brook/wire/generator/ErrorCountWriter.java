package io.brook.wire.generator;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Writes {@code countErrors(version, counter)} of a response and of its structs, the rule of
 * Kafka's {@code AbstractResponse.errorCounts()} which Kafka's request metrics mark on
 * {@code ErrorsPerSec}: each {@code ErrorCode} (and {@code PartitionErrorCode}) field present at
 * the version, in every struct and struct array, counts once (Produce: each partition's code;
 * Fetch: the top-level code and each partition's). A top-level code counts at every version, as
 * Kafka's response objects read NONE where a version lacks it, except in the responses of
 * {@link #TOP_LEVEL}; the codes below the fields of {@link #NOT_COUNTED} are not counted. The method returns how many codes were NONE and tells the counter of each
 * other one, so that the common all-NONE answer costs a walk and no call.
 */
final class ErrorCountWriter extends Section {
    /**
     * Responses whose top-level code Kafka counts differently: never (Metadata), only at the
     * versions that have it ("=": OffsetFetch, whose v8+ counts each group's code instead), or only
     * when the named array is empty (FindCoordinator v4+ counts its coordinators' codes instead;
     * likewise AddPartitionsToTxn below v4 its partitions').
     */
    static final Map<String, String> TOP_LEVEL = Map.of(
            "MetadataResponse", "",
            "DescribeUserScramCredentialsResponse", "",
            "OffsetFetchResponse", "=",
            "FindCoordinatorResponse", "Coordinators",
            "AddPartitionsToTxnResponse", "ResultsByTopicV3AndBelow");
    private static final Set<String> NAMES = Set.of("ErrorCode", "PartitionErrorCode");
    /** Struct fields (message:field) whose codes Kafka does not count: DeleteAcls counts its filters' only. */
    static final Set<String> NOT_COUNTED = Set.of("DeleteAclsResponse:MatchingAcls");

    private final Map<String, Boolean> hasErrors = new HashMap<>();

    ErrorCountWriter(Message m, Code c) {
        super(m, c);
    }

    /** Whether the struct has an error code, itself or below. */
    boolean hasErrors(Struct s) {
        Boolean known = hasErrors.get(s.path);
        if (known != null) {
            return known;
        }
        boolean found = false;
        for (Field f : s.fields) {
            if (counted(f) || (f.type.isStructLike() && hasErrors(m.structs.get(f.type.structOf())))) {
                found = true;
                break;
            }
        }
        hasErrors.put(s.path, found);
        return found;
    }

    private static boolean counted(Field f) {
        return NAMES.contains(f.name) && f.type.kind == Kind.INT16;
    }

    void countMethod(Struct s) {
        if (s.top) {
            c.line("@Override");
            c.open("public int countErrors(short version, ErrorCounter counter)");
        } else {
            c.open("int countErrors(short version, ErrorCounter counter)");
        }
        c.line("int none = 0;");
        for (Field f : s.fields) {
            String cond = k.cond(f.versions);
            if (s.top && counted(f)) {
                String only = TOP_LEVEL.get(m.name);
                if (only == null) {
                    cond = "true";
                } else if (only.isEmpty()) {
                    continue;
                } else if (!only.equals("=")) {
                    String array = s.field(only).javaName();
                    cond = "(" + array + " == null || " + array + ".isEmpty())";
                }
            }
            if (cond.equals("false")) {
                continue;
            }
            if (counted(f)) {
                boolean always = cond.equals("true");
                if (!always) {
                    c.open("if (" + cond + ")");
                }
                c.open("if (" + f.javaName() + " == 0)");
                c.line("none++;");
                c.closeWith("else");
                c.line("counter.error(" + f.javaName() + ");");
                c.close();
                if (!always) {
                    c.close();
                }
            } else if (f.type.isStructLike() && hasErrors(m.structs.get(f.type.structOf()))
                    && !NOT_COUNTED.contains(m.name + ":" + f.name)) {
                String guard = (cond.equals("true") ? "" : cond + " && ") + f.javaName() + " != null";
                c.open("if (" + guard + ")");
                if (f.type.kind == Kind.ARRAY) {
                    c.open("for (int i = 0, n = " + f.javaName() + ".size(); i < n; i++)");
                    c.line("none += " + f.javaName() + ".get(i).countErrors(version, counter);");
                    c.close();
                } else {
                    c.line("none += " + f.javaName() + ".countErrors(version, counter);");
                }
                c.close();
            }
        }
        c.line("return none;");
        c.close();
    }
}
