package io.brook.wire.record;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Samples.Sample;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

import static io.brook.wire.record.Samples.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * kafka-clients is the oracle: batches it writes must read identically through our flyweight,
 * and batches our builder writes must pass its checks and decode to the same records.
 */
class KafkaClientsInteropTest {

    enum Producer {
        NONE(-1L, (short) -1, -1, false),
        IDEMPOTENT(4711L, (short) 2, 100, false),
        TRANSACTIONAL(4712L, (short) 5, Integer.MAX_VALUE - 2, true); // sequences wrap inside the batch

        final long id;
        final short epoch;
        final int baseSequence;
        final boolean transactional;

        Producer(long id, short epoch, int baseSequence, boolean transactional) {
            this.id = id;
            this.epoch = epoch;
            this.baseSequence = baseSequence;
            this.transactional = transactional;
        }
    }

    static Stream<Arguments> codecsAndProducers() {
        List<Arguments> out = new ArrayList<>();
        for (Compression c : Compression.values()) {
            for (Producer p : Producer.values()) {
                out.add(Arguments.of(c, p));
            }
        }
        return out.stream();
    }

    private static final long BASE_OFFSET = 1234L;
    private static final int LEADER_EPOCH = 9;

    private static ByteBuffer kafkaBatch(Compression c, Producer p, List<Sample> samples) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024),
                org.apache.kafka.common.record.internal.RecordBatch.CURRENT_MAGIC_VALUE, Samples.kafka(c),
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, BASE_OFFSET,
                org.apache.kafka.common.record.internal.RecordBatch.NO_TIMESTAMP, p.id, p.epoch, p.baseSequence,
                p.transactional, LEADER_EPOCH);
        for (Sample s : samples) {
            builder.appendWithOffset(BASE_OFFSET + s.offsetDelta(), s.timestamp(), s.key(), s.value(),
                    Samples.kafkaHeaders(s));
        }
        return builder.build().buffer();
    }

    private static ByteBuffer ourBatch(Compression c, Producer p, List<Sample> samples) {
        RecordBatchBuilder builder = new RecordBatchBuilder(c).baseOffset(BASE_OFFSET).partitionLeaderEpoch(LEADER_EPOCH)
                .producer(p.id, p.epoch, p.baseSequence).transactional(p.transactional);
        for (Sample s : samples) {
            builder.appendWithOffset(BASE_OFFSET + s.offsetDelta(), s.timestamp(), wrap(s.key()), wrap(s.value()),
                    Samples.ourHeaders(s));
        }
        return builder.build();
    }

    private static ByteBuffer wrap(byte[] b) {
        return b == null ? null : ByteBuffer.wrap(b);
    }

    private static MutableRecordBatch onlyKafkaBatch(ByteBuffer buffer) {
        Iterator<MutableRecordBatch> it = MemoryRecords.readableRecords(buffer.duplicate()).batches().iterator();
        assertThat(it.hasNext()).isTrue();
        MutableRecordBatch batch = it.next();
        assertThat(it.hasNext()).isFalse();
        return batch;
    }

    private static void assertSameHeader(RecordBatch ours, MutableRecordBatch kafka) {
        DefaultRecordBatch k = (DefaultRecordBatch) kafka;
        assertThat(ours.sizeInBytes()).isEqualTo(k.sizeInBytes());
        assertThat(ours.baseOffset()).isEqualTo(k.baseOffset());
        assertThat(ours.lastOffset()).isEqualTo(k.lastOffset());
        assertThat(ours.nextOffset()).isEqualTo(k.nextOffset());
        assertThat(ours.partitionLeaderEpoch()).isEqualTo(k.partitionLeaderEpoch());
        assertThat(ours.magic()).isEqualTo(k.magic());
        assertThat(ours.crc()).isEqualTo(k.checksum());
        assertThat(ours.compressionId()).isEqualTo((int) k.compressionType().id);
        assertThat(ours.timestampType().name()).isEqualTo(k.timestampType().name());
        assertThat(ours.isTransactional()).isEqualTo(k.isTransactional());
        assertThat(ours.isControl()).isEqualTo(k.isControlBatch());
        assertThat(ours.hasDeleteHorizon()).isEqualTo(k.deleteHorizonMs().isPresent());
        assertThat(ours.deleteHorizonMs()).isEqualTo(k.deleteHorizonMs().orElse(-1L));
        assertThat(ours.baseTimestamp()).isEqualTo(k.baseTimestamp());
        assertThat(ours.maxTimestamp()).isEqualTo(k.maxTimestamp());
        assertThat(ours.producerId()).isEqualTo(k.producerId());
        assertThat(ours.hasProducerId()).isEqualTo(k.hasProducerId());
        assertThat(ours.producerEpoch()).isEqualTo(k.producerEpoch());
        assertThat(ours.baseSequence()).isEqualTo(k.baseSequence());
        assertThat(ours.lastSequence()).isEqualTo(k.lastSequence());
        assertThat(ours.recordsCount()).isEqualTo(k.countOrNull());
        assertThat(ours.isCrcValid()).isTrue();
        assertThat(k.isValid()).isTrue();
    }

    private static void assertSameRecords(RecordBatch ours, MutableRecordBatch kafka) {
        List<Record> mine = new ArrayList<>();
        ours.records().forEachRemaining(mine::add);
        List<org.apache.kafka.common.record.internal.Record> theirs = new ArrayList<>();
        kafka.forEach(theirs::add);
        assertThat(mine).hasSameSizeAs(theirs);
        for (int i = 0; i < mine.size(); i++) {
            Record m = mine.get(i);
            org.apache.kafka.common.record.internal.Record t = theirs.get(i);
            assertThat(m.offset()).as("offset of record %d", i).isEqualTo(t.offset());
            assertThat(m.timestamp()).as("timestamp of record %d", i).isEqualTo(t.timestamp());
            assertThat(m.sequence()).as("sequence of record %d", i).isEqualTo(t.sequence());
            assertThat(m.sizeInBytes()).as("size of record %d", i).isEqualTo(t.sizeInBytes());
            assertThat(bytes(m.key())).as("key of record %d", i).isEqualTo(bytes(t.key()));
            assertThat(bytes(m.value())).as("value of record %d", i).isEqualTo(bytes(t.value()));
            assertThat(m.hasKey()).isEqualTo(t.hasKey());
            assertThat(m.hasValue()).isEqualTo(t.hasValue());
            org.apache.kafka.common.header.Header[] th = t.headers();
            assertThat(m.headers()).hasSize(th.length);
            for (int h = 0; h < th.length; h++) {
                assertThat(m.headers().get(h).key()).isEqualTo(th[h].key());
                assertThat(bytes(m.headers().get(h).value())).isEqualTo(th[h].value());
            }
        }
    }

    private static void assertRecordsMatchSamples(RecordBatch ours, List<Sample> samples) {
        Iterator<Record> it = ours.records();
        for (Sample s : samples) {
            assertThat(it.hasNext()).isTrue();
            Record r = it.next();
            assertThat(r.offset()).isEqualTo(ours.baseOffset() + s.offsetDelta());
            assertThat(r.timestamp()).isEqualTo(s.timestamp());
            assertThat(bytes(r.key())).isEqualTo(s.key());
            assertThat(bytes(r.value())).isEqualTo(s.value());
            assertThat(r.headers()).hasSize(s.headers().size());
            for (int h = 0; h < s.headers().size(); h++) {
                assertThat(r.headers().get(h).key()).isEqualTo(s.headers().get(h).key());
                assertThat(bytes(r.headers().get(h).value())).isEqualTo(s.headers().get(h).value());
            }
        }
        assertThat(it.hasNext()).isFalse();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("codecsAndProducers")
    void shouldReadBatchesWrittenByKafkaClients(Compression c, Producer p) {
        List<Sample> samples = Samples.mixed();
        ByteBuffer buffer = kafkaBatch(c, p, samples);

        RecordBatch ours = new RecordBatch().wrap(buffer, 0);
        assertSameHeader(ours, onlyKafkaBatch(buffer));
        assertThat(ours.compression()).isEqualTo(c);
        assertThat(ours.validateClientBatch(buffer.remaining())).isEqualTo(Errors.NONE);
        assertSameRecords(ours, onlyKafkaBatch(buffer));
        assertRecordsMatchSamples(ours, samples);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("codecsAndProducers")
    void shouldWriteBatchesThatKafkaClientsRead(Compression c, Producer p) {
        List<Sample> samples = Samples.mixed();
        ByteBuffer buffer = ourBatch(c, p, samples);

        MutableRecordBatch kafka = onlyKafkaBatch(buffer);
        kafka.ensureValid();
        assertThat((int) kafka.compressionType().id).isEqualTo(c.id());
        RecordBatch ours = new RecordBatch().wrap(buffer, 0);
        assertSameHeader(ours, kafka);
        assertSameRecords(ours, kafka);
        assertRecordsMatchSamples(ours, samples);
        assertThat(ours.validateClientBatch(buffer.remaining())).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldWriteUncompressedBatchesByteForByteLikeKafkaClients() {
        for (Producer p : Producer.values()) {
            ByteBuffer theirs = kafkaBatch(Compression.NONE, p, Samples.mixed());
            ByteBuffer mine = ourBatch(Compression.NONE, p, Samples.mixed());
            assertThat(mine).as("producer %s", p).isEqualTo(theirs);
        }
    }

    /**
     * Kafka's LZ4 writer emits one frame: FLG = version 01 + block independence, no block
     * checksum, no content size, no content checksum; BD = 64 KiB blocks; header checksum
     * correct. Our frame header must be the same bytes, and both must end with the end mark.
     */
    @Test
    void shouldWriteTheSameLz4FrameHeaderAsKafkaClients() {
        ByteBuffer theirs = kafkaBatch(Compression.LZ4, Producer.NONE, Samples.mixed());
        ByteBuffer mine = ourBatch(Compression.LZ4, Producer.NONE, Samples.mixed());
        byte[] theirHeader = new byte[7];
        byte[] myHeader = new byte[7];
        theirs.get(RecordBatch.RECORDS_OFFSET, theirHeader);
        mine.get(RecordBatch.RECORDS_OFFSET, myHeader);
        assertThat(myHeader).isEqualTo(theirHeader);
        assertThat(ByteBuffer.wrap(myHeader).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(0x184D2204);
        assertThat(myHeader[4]).isEqualTo((byte) 0x60); // version 01, block independence, nothing else
        assertThat(myHeader[5]).isEqualTo((byte) 0x40); // 64 KiB max block size
        assertThat(theirs.getInt(theirs.limit() - 4)).isZero();
        assertThat(mine.getInt(mine.limit() - 4)).isZero();
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldReassignOffsetsAndLeaderEpochInPlaceWithoutBreakingTheCrc(Compression c) {
        // three batches back to back, as a Produce request or a segment holds them
        ByteBuffer a = kafkaBatch(c, Producer.IDEMPOTENT, Samples.mixed());
        ByteBuffer b = kafkaBatch(c, Producer.NONE, Samples.mixed().subList(0, 2));
        ByteBuffer d = ourBatch(c, Producer.TRANSACTIONAL, Samples.mixed().subList(1, 4));
        ByteBuffer all = ByteBuffer.allocate(a.remaining() + b.remaining() + d.remaining());
        all.put(a.duplicate()).put(b.duplicate()).put(d.duplicate()).flip();

        RecordBatches walk = new RecordBatches().wrap(all);
        long next = 5_000_000_000L;
        List<Long> crcs = new ArrayList<>();
        List<Long> bases = new ArrayList<>();
        RecordBatch batch;
        while ((batch = walk.next()) != null) {
            crcs.add(batch.crc());
            batch.setBaseOffset(next);
            batch.setPartitionLeaderEpoch(77);
            assertThat(batch.isCrcValid()).isTrue();
            bases.add(next);
            next = batch.nextOffset();
        }
        assertThat(walk.status()).isEqualTo(RecordBatches.Status.END);
        assertThat(bases).hasSize(3);

        int i = 0;
        for (MutableRecordBatch k : MemoryRecords.readableRecords(all.duplicate()).batches()) {
            k.ensureValid();
            assertThat(k.checksum()).isEqualTo(crcs.get(i));
            assertThat(k.baseOffset()).isEqualTo(bases.get(i));
            assertThat(k.partitionLeaderEpoch()).isEqualTo(77);
            long expected = bases.get(i);
            for (org.apache.kafka.common.record.internal.Record r : k) {
                assertThat(r.offset()).isBetween(expected, k.lastOffset());
                expected = r.offset() + 1;
            }
            assertThat(expected - 1).as("last record's offset").isEqualTo(k.lastOffset());
            i++;
        }
        assertThat(i).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(value = org.apache.kafka.common.record.internal.ControlRecordType.class, names = {"COMMIT", "ABORT"})
    void shouldReadTransactionMarkersWrittenByKafkaClients(org.apache.kafka.common.record.internal.ControlRecordType type) {
        ByteBuffer buffer = MemoryRecords.withEndTransactionMarker(700L, Samples.BASE_TIMESTAMP, 4, 991L, (short) 6,
                new org.apache.kafka.common.record.internal.EndTransactionMarker(type, 23)).buffer();

        RecordBatch ours = new RecordBatch().wrap(buffer, 0);
        assertSameHeader(ours, onlyKafkaBatch(buffer));
        assertSameRecords(ours, onlyKafkaBatch(buffer));
        assertThat(ours.isControl()).isTrue();
        assertThat(ours.isTransactional()).isTrue();
        Iterator<Record> records = ours.records();
        EndTransactionMarker marker = EndTransactionMarker.read(records.next());
        assertThat(records.hasNext()).isFalse();
        assertThat(marker.type().name()).isEqualTo(type.name());
        assertThat(marker.coordinatorEpoch()).isEqualTo(23);
        assertThat(ours.validateClientBatch(buffer.remaining())).isEqualTo(Errors.INVALID_RECORD);
    }

    @ParameterizedTest
    @EnumSource(value = ControlRecordType.class, names = {"COMMIT", "ABORT"})
    void shouldWriteTransactionMarkersThatKafkaClientsRead(ControlRecordType type) {
        ByteBuffer mine = RecordBatchBuilder.endTransactionMarker(700L, 4, 991L, (short) 6, type, 23,
                Samples.BASE_TIMESTAMP);
        ByteBuffer theirs = MemoryRecords.withEndTransactionMarker(700L, Samples.BASE_TIMESTAMP, 4, 991L, (short) 6,
                new org.apache.kafka.common.record.internal.EndTransactionMarker(
                        org.apache.kafka.common.record.internal.ControlRecordType.valueOf(type.name()), 23)).buffer();
        assertThat(mine).isEqualTo(theirs);

        MutableRecordBatch kafka = onlyKafkaBatch(mine);
        kafka.ensureValid();
        assertThat(kafka.isControlBatch()).isTrue();
        org.apache.kafka.common.record.internal.Record record = kafka.iterator().next();
        assertThat(org.apache.kafka.common.record.internal.ControlRecordType.parse(record.key()).name()).isEqualTo(type.name());
        assertThat(org.apache.kafka.common.record.internal.EndTransactionMarker.deserialize(record).coordinatorEpoch())
                .isEqualTo(23);
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldAgreeWithKafkaClientsOnDeleteHorizonBatches(Compression c) {
        long horizon = Samples.BASE_TIMESTAMP + 86_400_000L;
        MemoryRecordsBuilder kb = new MemoryRecordsBuilder(new ByteBufferOutputStream(ByteBuffer.allocate(256)),
                org.apache.kafka.common.record.internal.RecordBatch.CURRENT_MAGIC_VALUE, Samples.kafka(c),
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, 10L,
                org.apache.kafka.common.record.internal.RecordBatch.NO_TIMESTAMP, 5L, (short) 1, 0, false, false, 0,
                Integer.MAX_VALUE, horizon);
        RecordBatchBuilder ob = new RecordBatchBuilder(c).baseOffset(10L).partitionLeaderEpoch(0)
                .producer(5L, (short) 1, 0).deleteHorizonMs(horizon);
        for (Sample s : Samples.mixed().subList(0, 4)) {
            kb.appendWithOffset(10L + s.offsetDelta(), s.timestamp(), s.key(), s.value(), Samples.kafkaHeaders(s));
            ob.appendWithOffset(10L + s.offsetDelta(), s.timestamp(), wrap(s.key()), wrap(s.value()),
                    Samples.ourHeaders(s));
        }
        ByteBuffer theirs = kb.build().buffer();
        ByteBuffer mine = ob.build();

        RecordBatch fromKafka = new RecordBatch().wrap(theirs, 0);
        assertSameHeader(fromKafka, onlyKafkaBatch(theirs));
        assertSameRecords(fromKafka, onlyKafkaBatch(theirs));
        assertThat(fromKafka.deleteHorizonMs()).isEqualTo(horizon);

        RecordBatch fromUs = new RecordBatch().wrap(mine, 0);
        onlyKafkaBatch(mine).ensureValid();
        assertSameHeader(fromUs, onlyKafkaBatch(mine));
        assertSameRecords(fromUs, onlyKafkaBatch(mine));
        if (c == Compression.NONE) {
            assertThat(mine).isEqualTo(theirs);
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldAgreeWithKafkaClientsOnLogAppendTime(Compression c) {
        long appendTime = Samples.BASE_TIMESTAMP + 99_999L;
        MemoryRecordsBuilder kb = MemoryRecords.builder(ByteBuffer.allocate(256),
                org.apache.kafka.common.record.internal.RecordBatch.CURRENT_MAGIC_VALUE, Samples.kafka(c),
                org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME, 0L, appendTime);
        RecordBatchBuilder ob = new RecordBatchBuilder(c).logAppendTime(appendTime);
        for (Sample s : Samples.mixed().subList(0, 3)) {
            kb.appendWithOffset(s.offsetDelta(), s.timestamp(), s.key(), s.value(), Samples.kafkaHeaders(s));
            ob.appendWithOffset(s.offsetDelta(), s.timestamp(), wrap(s.key()), wrap(s.value()), Samples.ourHeaders(s));
        }
        ByteBuffer theirs = kb.build().buffer();
        ByteBuffer mine = ob.build();
        for (ByteBuffer buffer : Arrays.asList(theirs, mine)) {
            RecordBatch batch = new RecordBatch().wrap(buffer, 0);
            assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
            assertSameHeader(batch, onlyKafkaBatch(buffer));
            assertSameRecords(batch, onlyKafkaBatch(buffer));
            batch.records().forEachRemaining(r -> assertThat(r.timestamp()).isEqualTo(appendTime));
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldSetLogAppendTimeInPlaceWithAValidCrc(Compression c) {
        ByteBuffer buffer = kafkaBatch(c, Producer.IDEMPOTENT, Samples.mixed().subList(0, 3));
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, 1_800_000_000_000L);

        MutableRecordBatch kafka = onlyKafkaBatch(buffer);
        kafka.ensureValid();
        assertThat(kafka.timestampType()).isEqualTo(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME);
        assertThat(kafka.maxTimestamp()).isEqualTo(1_800_000_000_000L);
        assertSameRecords(batch, kafka);
    }

    @Test
    void shouldWriteEmptyBatchesThatKafkaClientsRead() {
        ByteBuffer mine = new RecordBatchBuilder(Compression.ZSTD).baseOffset(40).producer(8L, (short) 0, 12)
                .emptyBatchLastOffset(44).build();
        ByteBuffer theirs = ByteBuffer.allocate(RecordBatch.HEADER_SIZE);
        DefaultRecordBatch.writeEmptyHeader(theirs, org.apache.kafka.common.record.internal.RecordBatch.CURRENT_MAGIC_VALUE,
                8L, (short) 0, 12, 40L, 44L, -1, org.apache.kafka.common.record.TimestampType.CREATE_TIME, -1L,
                false, false);
        theirs.flip();
        assertThat(mine).isEqualTo(theirs);
        MutableRecordBatch kafka = onlyKafkaBatch(mine);
        kafka.ensureValid();
        assertThat(kafka.lastOffset()).isEqualTo(44L);
        assertThat(new RecordBatch().wrap(mine, 0).records().hasNext()).isFalse();
    }
}
