package io.brook.coordinator.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the partitions out of a consumer's SyncGroup assignment (the ConsumerProtocol
 * "assignment", protocol type {@code consumer}), for display. Every version (0-3) starts the same
 * way and is never flexible:
 * <pre>
 *   +---------------+-------------+------------------------------------------------------------+-----
 *   | int16 version | int32 count | topic: int16 length + UTF-8 bytes, int32 n, n int32 ... count | (user data)
 *   +---------------+-------------+------------------------------------------------------------+-----
 * </pre>
 */
final class ConsumerAssignment {

    private ConsumerAssignment() {
    }

    /** @return the assigned partitions by topic, in the order written, or null when the bytes are not a readable assignment */
    static Map<String, List<Integer>> partitions(byte[] assignment) {
        if (assignment == null || assignment.length == 0) {
            return Map.of();
        }
        ByteBuffer b = ByteBuffer.wrap(assignment);
        if (b.remaining() < 6 || b.getShort() < 0) {
            return null;
        }
        int count = b.getInt();
        if (count < 0 || (long) count * 6 > b.remaining()) {
            return null;
        }
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            if (b.remaining() < 2) {
                return null;
            }
            short len = b.getShort();
            if (len < 0 || len + 4L > b.remaining()) {
                return null;
            }
            byte[] name = new byte[len];
            b.get(name);
            int n = b.getInt();
            if (n < 0 || (long) n * 4 > b.remaining()) {
                return null;
            }
            List<Integer> partitions = new ArrayList<>(n);
            for (int j = 0; j < n; j++) {
                partitions.add(b.getInt());
            }
            out.put(new String(name, StandardCharsets.UTF_8), List.copyOf(partitions));
        }
        return out;
    }
}
