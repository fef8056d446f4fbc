package io.brook.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.MetadataRecord.Configs;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The {@code Configs} record (type 12): a resource's config changes as one record, all or nothing. */
class ConfigsRecordTest {

    private static final UUID T = new UUID(3, 4);

    private static Configs configs(String topic, Object... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (String) kv[i + 1]);
        }
        return Configs.of(MetadataRecord.RESOURCE_TOPIC, topic, m);
    }

    @Test
    void roundTripsWithRemovalsAndRejectsEveryTruncation() {
        List<MetadataRecord> batch = List.of(configs("orders", "retention.ms", "1000", "cleanup.policy", null),
                Configs.of(MetadataRecord.RESOURCE_BROKER, "1", Map.of()));
        byte[] bytes = MetadataCodec.encodeBatch(batch);

        assertThat(MetadataCodec.decodeBatch(ByteBuffer.wrap(bytes))).isEqualTo(batch);
        for (int length = 0; length < bytes.length; length++) {
            ByteBuffer truncated = ByteBuffer.wrap(Arrays.copyOf(bytes, length));
            assertThatThrownBy(() -> MetadataCodec.decodeBatch(truncated)).isInstanceOf(CorruptMetadataException.class);
        }
    }

    @Test
    void refusesRepeatedOrUnorderedKeys() {
        ByteBuffer payload = ByteBuffer.allocate(64);
        payload.put(MetadataRecord.RESOURCE_TOPIC);
        putString(payload, "t");
        payload.putInt(2);
        putString(payload, "b");
        putString(payload, "1");
        putString(payload, "a");
        putString(payload, "2");
        payload.flip();
        ByteBuffer batch = ByteBuffer.allocate(7 + 6 + payload.remaining());
        batch.put((byte) 'B').put((byte) 'M').put((byte) 1).putInt(1);
        batch.put(MetadataRecord.CONFIGS).put((byte) 1).putInt(payload.remaining()).put(payload).flip();

        assertThatThrownBy(() -> MetadataCodec.decodeBatch(batch)).isInstanceOf(CorruptMetadataException.class)
                .hasMessageContaining("out of order or repeated");
    }

    @Test
    void appliesAllChangesOrNone() {
        MetadataImage image = new MetadataImage();
        image.apply(new Topic("orders", T));
        image.apply(configs("orders", "retention.ms", "1000", "segment.bytes", "2048"));
        image.apply(configs("orders", "retention.ms", null, "cleanup.policy", "compact"));

        assertThat(image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, "orders")))
                .isEqualTo(new TreeMap<>(Map.of("segment.bytes", "2048", "cleanup.policy", "compact")));
        assertThatThrownBy(() -> image.apply(configs("missing", "retention.ms", "1")))
                .isInstanceOf(RejectedRecordException.class);
        assertThat(image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, "missing"))).isEmpty();
    }

    /**
     * A log written before the {@code Configs} record existed, one {@code Config} record per key,
     * laid out by hand as format version 1 has it, still decodes and replays.
     */
    @Test
    void aLogOfSingleConfigRecordsStillReplays() {
        ByteBuffer topic = ByteBuffer.allocate(64);
        putString(topic, "orders");
        topic.putLong(T.getMostSignificantBits()).putLong(T.getLeastSignificantBits()).flip();
        ByteBuffer set = ByteBuffer.allocate(64);
        set.put((byte) 2);
        putString(set, "orders");
        putString(set, "retention.ms");
        putString(set, "1000");
        set.flip();
        ByteBuffer remove = ByteBuffer.allocate(64);
        remove.put((byte) 2);
        putString(remove, "orders");
        putString(remove, "segment.bytes");
        remove.putShort((short) -1).flip();
        ByteBuffer batch = ByteBuffer.allocate(256);
        batch.put((byte) 'B').put((byte) 'M').put((byte) 1).putInt(3);
        for (ByteBuffer[] r : new ByteBuffer[][] {{type(5), topic}, {type(9), set}, {type(9), remove}}) {
            batch.put(r[0].get(0)).put((byte) 1).putInt(r[1].remaining()).put(r[1]);
        }
        batch.flip();

        MetadataImage image = new MetadataImage();
        assertThat(image.applyBatch(MetadataCodec.decodeBatch(batch))).containsExactly(true, true, true);
        assertThat(image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, "orders")))
                .containsExactlyEntriesOf(Map.of("retention.ms", "1000"));
    }

    private static ByteBuffer type(int t) {
        return ByteBuffer.wrap(new byte[] {(byte) t});
    }

    private static void putString(ByteBuffer b, String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        b.putShort((short) utf8.length).put(utf8);
    }
}
