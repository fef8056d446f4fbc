package io.brook.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Consumer-group members that subscribe to a topic, "process" each poll's records (count them)
 * and then commit the offsets after them with {@code commitSync}; every commit that returned is
 * raised into the {@link CommitFloors}, and the highest offset given out per partition is kept
 * ({@link #seen}). One thread per member. A failed poll or commit is counted
 * by its exception and the member carries on; one that throws something no retry can cure is
 * replaced by a new member of the same group.
 */
final class CommittingConsumers {
    private final String bootstrap;
    private final Map<String, String> security;
    private final String topic;
    private final List<String> groups;
    private final int membersPerGroup;
    private final CommitFloors floors = new CommitFloors();
    private final List<Thread> threads = new ArrayList<>();
    private final List<KafkaConsumer<?, ?>> live = new ArrayList<>();
    private final Failures failures = new Failures();
    private final PauseMeter pauses = new PauseMeter();
    private final Map<TopicPartition, Long> seen = new ConcurrentHashMap<>();
    private final AtomicLong consumed = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private volatile boolean running = true;

    CommittingConsumers(String bootstrap, String topic, List<String> groups, int membersPerGroup) {
        this(bootstrap, Map.of(), topic, groups, membersPerGroup);
    }

    /** Members that connect with the client settings {@code security} ({@link Clients}). */
    CommittingConsumers(String bootstrap, Map<String, String> security, String topic, List<String> groups, int membersPerGroup) {
        this.bootstrap = bootstrap;
        this.security = Map.copyOf(security);
        this.topic = topic;
        this.groups = List.copyOf(groups);
        this.membersPerGroup = membersPerGroup;
    }

    CommittingConsumers start() {
        for (String group : groups) {
            for (int m = 0; m < membersPerGroup; m++) {
                String id = group + "-" + m;
                Thread t = new Thread(() -> run(group, id), "consumer-" + id);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }
        return this;
    }

    private void run(String group, String clientId) {
        while (running) {
            KafkaConsumer<byte[], byte[]> consumer = Clients.groupConsumer(bootstrap, group, clientId, security);
            register(consumer, true);
            try {
                consumer.subscribe(List.of(topic));
                pollAndCommit(group, consumer);
            } catch (WakeupException | InterruptException e) {
                return;
            } catch (RuntimeException e) {
                failures.add("fatal ", e);
            } finally {
                register(consumer, false);
                try {
                    consumer.close(Duration.ofSeconds(2));
                } catch (RuntimeException e) {
                    failures.add("close ", e);
                }
            }
        }
    }

    private void pollAndCommit(String group, KafkaConsumer<byte[], byte[]> consumer) {
        while (running) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                records = consumer.poll(Duration.ofMillis(200));
            } catch (WakeupException | InterruptException e) {
                throw e;
            } catch (org.apache.kafka.common.errors.RetriableException e) {
                failures.add("poll ", e);
                continue;
            }
            if (records.isEmpty()) {
                continue;
            }
            Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
            }
            next.forEach((tp, om) -> seen.merge(tp, om.offset() - 1, Math::max));
            consumed.addAndGet(records.count());
            try {
                consumer.commitSync(next, Duration.ofSeconds(10));
            } catch (WakeupException | InterruptException e) {
                throw e;
            } catch (org.apache.kafka.common.KafkaException e) {
                failures.add("commit ", e);
                continue;
            }
            next.forEach((tp, om) -> floors.raise(group, tp, om.offset()));
            commits.incrementAndGet();
            pauses.event();
        }
    }

    private synchronized void register(KafkaConsumer<?, ?> c, boolean add) {
        if (add) {
            live.add(c);
        } else {
            live.remove(c);
        }
    }

    void stop() throws InterruptedException {
        running = false;
        synchronized (this) {
            live.forEach(KafkaConsumer::wakeup);
        }
        for (Thread t : threads) {
            t.join(30_000);
        }
    }

    /** A copy of the highest offset any member was given, per partition. */
    Map<TopicPartition, Long> seen() {
        return Map.copyOf(seen);
    }

    CommitFloors floors() {
        return floors;
    }

    long consumed() {
        return consumed.get();
    }

    long commits() {
        return commits.get();
    }

    /** The longest time between two commits. */
    PauseMeter pauses() {
        return pauses;
    }

    /** Failed polls and commits by exception class. */
    Failures failures() {
        return failures;
    }
}
