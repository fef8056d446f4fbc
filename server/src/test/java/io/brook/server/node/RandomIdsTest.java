package io.brook.server.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RandomIdsTest {

    @Test
    void shouldMakeVersion4UuidsWithTheIetfVariant() {
        for (int i = 0; i < 100; i++) {
            UUID u = RandomIds.uuid();
            assertThat(u.version()).isEqualTo(4);
            assertThat(u.variant()).isEqualTo(2);
        }
    }

    @Test
    void shouldNotRepeatItself() {
        Set<UUID> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertThat(seen.add(RandomIds.uuid())).isTrue();
        }
    }

    @Test
    void shouldKeepEveryRandomBitButTheSixOfVersionAndVariant() {
        byte[] ones = new byte[16];
        java.util.Arrays.fill(ones, (byte) 0xFF);
        UUID u = RandomIds.fromRandomBytes(ones);
        assertThat(u.getMostSignificantBits()).isEqualTo(0xFFFFFFFFFFFF4FFFL);
        assertThat(u.getLeastSignificantBits()).isEqualTo(0xBFFFFFFFFFFFFFFFL);
        UUID z = RandomIds.fromRandomBytes(new byte[16]);
        assertThat(z.getMostSignificantBits()).isEqualTo(0x4000L);
        assertThat(z.getLeastSignificantBits()).isEqualTo(0x8000000000000000L);
        assertThatThrownBy(() -> RandomIds.fromRandomBytes(new byte[15])).isInstanceOf(IllegalArgumentException.class);
    }
}
