package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** KIP-368's session lifetime from connections.max.reauth.ms and the credential's expiry, as Kafka's broker computes it. */
class SessionLifetimeTest {

    private static final long NOW = 1_700_000_000_000L;

    @Test
    void withoutAnExpiringCredentialOnlyTheReauthSettingBoundsTheSession() {
        assertThat(SessionLifetime.ms(60_000, OptionalLong.empty(), NOW)).hasValue(60_000);
        assertThat(SessionLifetime.ms(0, OptionalLong.empty(), NOW)).isEmpty();
    }

    @Test
    void aTokenExpiringBeforeTheReauthSettingBoundsTheSession() {
        assertThat(SessionLifetime.ms(60_000, OptionalLong.of(NOW + 5_000), NOW)).hasValue(5_000);
    }

    @Test
    void theReauthSettingBoundsASessionWhoseTokenExpiresLater() {
        assertThat(SessionLifetime.ms(60_000, OptionalLong.of(NOW + 3_600_000), NOW)).hasValue(60_000);
    }

    @Test
    void withReauthDisabledTheTokenAloneBoundsTheSession() {
        assertThat(SessionLifetime.ms(0, OptionalLong.of(NOW + 3_600_000), NOW)).hasValue(3_600_000);
    }

    @Test
    void aTokenPastItsExpiryGivesZero() {
        assertThat(SessionLifetime.ms(60_000, OptionalLong.of(NOW - 1_000), NOW)).hasValue(0);
        assertThat(SessionLifetime.ms(0, OptionalLong.of(NOW - 1_000), NOW)).hasValue(0);
        assertThat(SessionLifetime.ms(0, OptionalLong.of(NOW), NOW)).hasValue(0);
        assertThat(SessionLifetime.ms(0, OptionalLong.of(Long.MIN_VALUE), NOW)).as("no overflow").hasValue(0);
    }
}
