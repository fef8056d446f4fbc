package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class LogSegmentNameTest {

    @Test
    void namesTheOffsetInTwentyZeroPaddedDigitsAsKafkaDoes() {
        assertThat(LogSegment.name(0)).isEqualTo("00000000000000000000");
        assertThat(LogSegment.name(1234)).isEqualTo("00000000000000001234");
        assertThat(LogSegment.name(Long.MAX_VALUE)).isEqualTo("09223372036854775807");
        for (long offset : new long[] {1, 9, 10, 99_999, 1L << 31, 1L << 40, 999_999_999_999_999_999L, -1}) {
            assertThat(LogSegment.name(offset)).isEqualTo(String.format(Locale.ROOT, "%020d", offset));
        }
    }
}
