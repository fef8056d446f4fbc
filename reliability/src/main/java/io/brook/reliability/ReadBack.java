package io.brook.reliability;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a topic from its first offset to its end and checks it against the producers'
 * acknowledgements: every acknowledged id present, none of them twice, each at the offset its
 * acknowledgement named, and within each partition the acknowledged ids of a producer slot in the
 * order they were sent. Records nobody acknowledged (the broker crashed before answering, or the
 * answer was an error) may or may not be there; they are counted, not judged.
 */
final class ReadBack {
    private static final int EXAMPLES = 5;

    /** What the read found; {@link #ok()} when no acknowledged record was lost, duplicated, moved or reordered. */
    record Verification(long records, long acked, long missing, long duplicatedAcked, long duplicatedAll,
            long offsetMismatches, long orderViolations, long foreign, List<String> examples) {

        boolean ok() {
            return missing == 0 && duplicatedAcked == 0 && offsetMismatches == 0 && orderViolations == 0;
        }

        String summary() {
            return records + " records read, " + acked + " acknowledged: " + missing + " missing, " + duplicatedAcked
                    + " acknowledged ids duplicated (" + duplicatedAll + " duplicates of any id), " + offsetMismatches
                    + " at another offset than acknowledged, " + orderViolations + " out of order"
                    + (examples.isEmpty() ? "" : "; e.g. " + String.join("; ", examples));
        }
    }

    private final AckLedger ledger;
    private final BitSet[] seen;
    private final List<String> examples = new ArrayList<>();
    private long records;
    private long duplicatedAcked;
    private long duplicatedAll;
    private long offsetMismatches;
    private long orderViolations;
    private long foreign;

    ReadBack(AckLedger ledger) {
        this.ledger = ledger;
        this.seen = new BitSet[ledger.slots()];
        for (int i = 0; i < seen.length; i++) {
            seen[i] = new BitSet();
        }
    }

    /** Reads all of {@code topic} (up to its end offsets when the read starts) and verifies it. */
    static Verification verify(String bootstrap, String topic, AckLedger ledger, Duration timeout) {
        return verify(bootstrap, Map.of(), topic, ledger, timeout);
    }

    /**
     * Every partition of {@code seen} (the highest offset a consumer was given in each) whose log
     * end offset is not past that offset now, described in words; empty when none.
     */
    static List<String> beyondEnd(String bootstrap, Map<TopicPartition, Long> seen, Duration timeout) {
        List<String> out = new ArrayList<>();
        if (seen.isEmpty()) {
            return out;
        }
        try (KafkaConsumer<byte[], byte[]> reader = Clients.reader(bootstrap, "reliability-end-offsets", Map.of())) {
            Map<TopicPartition, Long> end = reader.endOffsets(seen.keySet(), timeout);
            seen.entrySet().stream().sorted(Comparator.comparing(e -> e.getKey().toString())).forEach(e -> {
                long now = end.get(e.getKey());
                if (now <= e.getValue()) {
                    out.add(e.getKey() + ": offset " + e.getValue() + " was consumed, the log now ends at " + now);
                }
            });
        }
        return out;
    }

    /** The same, read with the client settings {@code security} ({@link Clients}). */
    static Verification verify(String bootstrap, Map<String, String> security, String topic, AckLedger ledger,
            Duration timeout) {
        ReadBack check = new ReadBack(ledger);
        try (KafkaConsumer<byte[], byte[]> reader = Clients.reader(bootstrap, "reliability-read-back", security)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < ledger.partitions(); p++) {
                tps.add(new TopicPartition(topic, p));
            }
            reader.assign(tps);
            reader.seekToBeginning(tps);
            Map<TopicPartition, Long> end = reader.endOffsets(tps, timeout);
            Map<Integer, Map<Integer, Long>> lastAckedSeq = new HashMap<>();
            Await.until("reading " + topic + " back to " + end, timeout, () -> {
                for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(200))) {
                    check.accept(r.partition(), r.offset(), r.key(),
                            lastAckedSeq.computeIfAbsent(r.partition(), p -> new HashMap<>()));
                }
                return tps.stream().allMatch(tp -> reader.position(tp) >= end.get(tp));
            });
        }
        return check.result();
    }

    /** One record of a partition, read in offset order; {@code lastAcked} is that partition's state. */
    void accept(int partition, long offset, byte[] key, Map<Integer, Long> lastAcked) {
        records++;
        long[] id = AckLedger.parseKey(key);
        if (id == null || id[0] >= seen.length || id[1] >= Integer.MAX_VALUE) {
            foreign++;
            return;
        }
        int slot = (int) id[0];
        long seq = id[1];
        long ackedAt = ledger.ackedOffset(slot, seq);
        boolean again = seen[slot].get((int) seq);
        seen[slot].set((int) seq);
        if (again) {
            duplicatedAll++;
            if (ackedAt >= 0) {
                duplicatedAcked++;
                example("id " + slot + ":" + seq + " again at " + partition + "@" + offset);
            }
        }
        if (ackedAt < 0) {
            return;
        }
        if (ackedAt != offset || ledger.partitionOf(seq) != partition) {
            offsetMismatches++;
            example("id " + slot + ":" + seq + " acknowledged at " + ledger.partitionOf(seq) + "@" + ackedAt
                    + ", found at " + partition + "@" + offset);
        }
        Long last = lastAcked.get(slot);
        if (last != null && seq < last) {
            orderViolations++;
            example("id " + slot + ":" + seq + " after " + slot + ":" + last + " in partition " + partition);
        }
        lastAcked.merge(slot, seq, Math::max);
    }

    Verification result() {
        long missing = 0;
        for (int slot = 0; slot < seen.length; slot++) {
            long bound = ledger.seqBound(slot);
            for (long seq = 0; seq < bound; seq++) {
                if (ledger.ackedOffset(slot, seq) >= 0 && !seen[slot].get((int) seq)) {
                    missing++;
                    example("id " + slot + ":" + seq + " acknowledged at " + ledger.partitionOf(seq) + "@"
                            + ledger.ackedOffset(slot, seq) + " is missing");
                }
            }
        }
        return new Verification(records, ledger.ackedCount(), missing, duplicatedAcked, duplicatedAll, offsetMismatches,
                orderViolations, foreign, List.copyOf(examples));
    }

    private void example(String what) {
        if (examples.size() < EXAMPLES) {
            examples.add(what);
        }
    }
}
