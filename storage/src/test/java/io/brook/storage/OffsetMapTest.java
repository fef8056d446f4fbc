package io.brook.storage;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class OffsetMapTest {
    private static ByteBuffer key(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldKeepTheNewestOffsetPerKeyAndMinusOneForUnknownKeys() {
        OffsetMap m = new OffsetMap(1024);
        assertThat(m.put(key("a"), 1)).isTrue();
        assertThat(m.put(key("b"), 2)).isTrue();
        assertThat(m.put(key("a"), 7)).isTrue();
        assertThat(m.get(key("a"))).isEqualTo(7);
        assertThat(m.get(key("b"))).isEqualTo(2);
        assertThat(m.get(key("c"))).isEqualTo(-1);
        assertThat(m.size()).isEqualTo(2);
        // Offset 0 is a real offset, not an empty slot.
        assertThat(m.put(key("z"), 0)).isTrue();
        assertThat(m.get(key("z"))).isZero();
    }

    @Test
    void shouldRefuseNewKeysWhenFullButStillUpdateKnownOnes() {
        OffsetMap m = new OffsetMap(10 * OffsetMap.SLOT_BYTES);
        int max = m.maxEntries();
        assertThat(max).isEqualTo(9);
        for (int i = 0; i < max; i++) {
            assertThat(m.put(key("k" + i), i)).isTrue();
        }
        assertThat(m.put(key("new"), 100)).isFalse();
        assertThat(m.get(key("new"))).isEqualTo(-1);
        assertThat(m.put(key("k3"), 101)).isTrue();
        for (int i = 0; i < max; i++) {
            assertThat(m.get(key("k" + i))).isEqualTo(i == 3 ? 101 : i);
        }
        assertThat(m.capacityBytes()).isEqualTo(10 * OffsetMap.SLOT_BYTES);
        m.clear();
        assertThat(m.size()).isZero();
        assertThat(m.get(key("k3"))).isEqualTo(-1);
        assertThat(m.put(key("new"), 5)).isTrue();
    }

    @Test
    void shouldWorkWithTheSmallestMap() {
        OffsetMap m = new OffsetMap(1);
        assertThat(m.put(key("a"), 1)).isTrue();
        assertThat(m.put(key("b"), 2)).isFalse();
        assertThat(m.get(key("b"))).isEqualTo(-1);
        assertThat(m.get(key("a"))).isEqualTo(1);
    }

    @Test
    void shouldNotReadOrMoveTheKeyBuffersPosition() {
        OffsetMap m = new OffsetMap(1024);
        ByteBuffer k = ByteBuffer.wrap("xxkeyxx".getBytes(StandardCharsets.UTF_8), 2, 3).slice();
        m.put(k, 4);
        assertThat(k.position()).isZero();
        assertThat(m.get(key("key"))).isEqualTo(4);
    }
}
