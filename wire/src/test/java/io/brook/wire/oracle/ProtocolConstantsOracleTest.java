package io.brook.wire.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Our API keys and error codes against kafka-clients' {@code ApiKeys} and {@code Errors}. */
class ProtocolConstantsOracleTest {

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void apiKeyHasKafkasIdAndName(ApiKey key) {
        ApiKeys kafka = ApiKeys.valueOf(key.name());
        assertThat(key.id()).isEqualTo(kafka.id);
        assertThat(key.displayName()).isEqualTo(kafka.name);
        assertThat(ApiKey.forId(kafka.id)).isSameAs(key);
    }

    /**
     * The codec reaches the newest version a broker of this kafka-clients' release advertises (its
     * stable latest) and goes down to its oldest, so the server can advertise the current range.
     */
    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void codecCoversEveryVersionKafkaAdvertises(ApiKey key) {
        ApiKeys kafka = ApiKeys.valueOf(key.name());
        assertThat(key.latestVersion()).as("%s newest", key).isGreaterThanOrEqualTo(kafka.latestVersion(false));
        assertThat(key.oldestVersion()).as("%s oldest", key).isLessThanOrEqualTo(kafka.oldestVersion());
    }

    /**
     * Header versions are a function of the flexible range; they are checked over our whole codec
     * range and a little beyond, because a request newer than we know still needs its header read.
     */
    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void headerVersionsAndFlexibilityMatchKafka(ApiKey key) {
        ApiKeys kafka = ApiKeys.valueOf(key.name());
        for (short v = key.oldestVersion(); v <= key.latestVersion() + 3; v++) {
            assertThat(key.requestHeaderVersion(v)).as("%s v%d request header", key, v)
                    .isEqualTo(kafka.requestHeaderVersion(v));
            assertThat(key.responseHeaderVersion(v)).as("%s v%d response header", key, v)
                    .isEqualTo(kafka.responseHeaderVersion(v));
            assertThat(key.isFlexible(v)).as("%s v%d flexible", key, v)
                    .isEqualTo(kafka.requestHeaderVersion(v) == 2);
        }
    }

    @Test
    void apiVersionsResponseHeaderIsAlwaysV0() {
        for (short v = 0; v < 10; v++) {
            assertThat(ApiKey.API_VERSIONS.responseHeaderVersion(v)).isZero();
            assertThat(ApiKeys.API_VERSIONS.responseHeaderVersion(v)).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void errorHasKafkasNameAndCode(Errors error) {
        org.apache.kafka.common.protocol.Errors kafka = org.apache.kafka.common.protocol.Errors.forCode(error.code());
        assertThat(kafka.name()).as("kafka name of code %d", error.code()).isEqualTo(error.name());
        assertThat(kafka.code()).isEqualTo(error.code());
        assertThat(Errors.forCode(error.code())).isSameAs(error);
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void errorIsRetriableExactlyWhenKafkasExceptionIs(Errors error) {
        org.apache.kafka.common.protocol.Errors kafka = org.apache.kafka.common.protocol.Errors.valueOf(error.name());
        boolean kafkaRetriable = kafka.exception() instanceof RetriableException;
        assertThat(error.retriable()).as("%s retriable", error).isEqualTo(kafkaRetriable);
    }

    /**
     * Codes kafka-clients knows and we do not are answered as UNKNOWN_SERVER_ERROR by
     * {@link Errors#forCode}; they must all be newer than the ones we have (no holes in the middle).
     */
    @Test
    void errorsWeLackAreOnlyNewerThanOurHighestCode() {
        int ourMax = Arrays.stream(Errors.values()).mapToInt(Errors::code).max().orElseThrow();
        List<String> missing = new ArrayList<>();
        for (org.apache.kafka.common.protocol.Errors kafka : org.apache.kafka.common.protocol.Errors.values()) {
            if (Errors.forCode(kafka.code()) == Errors.UNKNOWN_SERVER_ERROR && kafka.code() != -1) {
                missing.add(kafka.code() + " " + kafka.name());
            }
        }
        assertThat(missing.stream().filter(m -> Integer.parseInt(m.split(" ")[0]) <= ourMax)
                .collect(Collectors.toList())).isEmpty();
    }
}
