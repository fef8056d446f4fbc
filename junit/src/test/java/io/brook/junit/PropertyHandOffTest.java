package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

@ResourceLock(Resources.SYSTEM_PROPERTIES)
class PropertyHandOffTest {

    @Test
    void restoresEarlierValuesAndClearsThoseThatWereUnset() {
        System.setProperty("brook.test.kept", "before");
        System.clearProperty("brook.test.unset");
        PropertyHandOff handOff = PropertyHandOff.set(new String[] {"brook.test.kept", "brook.test.unset"}, "127.0.0.1:1");
        assertThat(System.getProperty("brook.test.kept")).isEqualTo("127.0.0.1:1");
        assertThat(System.getProperty("brook.test.unset")).isEqualTo("127.0.0.1:1");
        handOff.restore();
        assertThat(System.getProperty("brook.test.kept")).isEqualTo("before");
        assertThat(System.getProperty("brook.test.unset")).isNull();
        System.clearProperty("brook.test.kept");
    }
}
