package io.brook.wire.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogSafeTest {

    @Test
    void shouldKeepPrintableNamesAsTheyAre() {
        String name = "orders.v2_eu-west";
        assertThat(LogSafe.escape(name)).isSameAs(name);
        assertThat(LogSafe.escape("Zürich-東京-😀")).isEqualTo("Zürich-東京-😀");
        assertThat(LogSafe.escape(null)).isEqualTo("null");
    }

    @Test
    void shouldEscapeLineBreaksSoThatANameStaysOnOneLine() {
        String forged = "x\n2026-01-01T00:00:00.000Z [main] ERROR forged\r\n";
        String escaped = LogSafe.escape(forged);
        assertThat(escaped).doesNotContain("\n", "\r");
        assertThat(escaped).isEqualTo("x\\n2026-01-01T00:00:00.000Z [main] ERROR forged\\r\\n");
    }

    @Test
    void shouldEscapeControlAndInvisibleCharacters() {
        assertThat(LogSafe.escape("a\u0000b\tc\u001b[31md\u007f")).isEqualTo("a\\x00b\\tc\\x1b[31md\\x7f");
        assertThat(LogSafe.escape("\u0085\u2028\u2029")).isEqualTo("\\x85\\u2028\\u2029");
        assertThat(LogSafe.escape("evil\u202Etxt.exe")).isEqualTo("evil\\u202etxt.exe");
        assertThat(LogSafe.escape("lone\ud800")).isEqualTo("lone\\ud800");
    }

    @Test
    void shouldDoubleBackslashesSoEscapesCannotBeFaked() {
        assertThat(LogSafe.escape("a\\nb")).isEqualTo("a\\\\nb");
    }
}
