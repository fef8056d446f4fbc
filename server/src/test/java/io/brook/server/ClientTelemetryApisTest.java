package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.MutableClock;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.DescribeConfigsRequest;
import io.brook.wire.message.DescribeConfigsResponse;
import io.brook.wire.message.GetTelemetrySubscriptionsRequest;
import io.brook.wire.message.GetTelemetrySubscriptionsResponse;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.ListConfigResourcesRequest;
import io.brook.wire.message.ListConfigResourcesResponse;
import io.brook.wire.message.PushTelemetryRequest;
import io.brook.wire.message.PushTelemetryResponse;
import io.brook.wire.protocol.Errors;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * KIP-714 over the wire: CLIENT_METRICS resources through IncrementalAlterConfigs, DescribeConfigs
 * and ListConfigResources, and the bad pushes (too large, unknown subscription id, too early,
 * garbage) answered with Kafka's errors on a connection that goes on serving.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientTelemetryApisTest {

    private static final byte CLIENT_METRICS = 16;

    private static IncrementalAlterConfigsRequest set(String name, String... kv) {
        List<IncrementalAlterConfigsRequest.AlterableConfig> configs = new java.util.ArrayList<>();
        for (int i = 0; i < kv.length; i += 2) {
            configs.add(new IncrementalAlterConfigsRequest.AlterableConfig().name(kv[i]).value(kv[i + 1])
                    .configOperation((byte) 0));
        }
        return new IncrementalAlterConfigsRequest().resources(List.of(new IncrementalAlterConfigsRequest.AlterConfigsResource()
                .resourceType(CLIENT_METRICS).resourceName(name).configs(configs)));
    }

    @Test
    void alterConfigsReplacesASubscriptionAndListConfigResourcesV1ListsByType() throws Exception {
        try (Brook brook = Brook.builder().start(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            brook.createTopic("listed", 1);
            c.call(set("whole", "metrics", "a.", "interval.ms", "1000"), (short) 1);
            io.brook.wire.message.AlterConfigsResponse replaced = c.call(new io.brook.wire.message.AlterConfigsRequest()
                    .resources(List.of(new io.brook.wire.message.AlterConfigsRequest.AlterConfigsResource()
                            .resourceType(CLIENT_METRICS).resourceName("whole").configs(List.of(
                                    new io.brook.wire.message.AlterConfigsRequest.AlterableConfig().name("metrics")
                                            .value("b."))))), (short) 2);
            assertThat(replaced.responses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            DescribeConfigsResponse described = c.call(new DescribeConfigsRequest().resources(List.of(
                    new DescribeConfigsRequest.DescribeConfigsResource().resourceType(CLIENT_METRICS).resourceName("whole")
                            .configurationKeys(null))), (short) 4);
            assertThat(described.results().get(0).configs()).extracting(r -> r.name() + "=" + r.value())
                    .containsExactly("metrics=b.");

            ListConfigResourcesResponse metricsOnly = c.call(new ListConfigResourcesRequest()
                    .resourceTypes(List.of(CLIENT_METRICS)), (short) 1);
            assertThat(metricsOnly.configResources()).extracting(r -> r.resourceType() + ":" + r.resourceName())
                    .containsExactly("16:whole");
            ListConfigResourcesResponse all = c.call(new ListConfigResourcesRequest(), (short) 1);
            assertThat(all.configResources()).extracting(r -> r.resourceType() + ":" + r.resourceName())
                    .contains("2:listed", "16:whole");
            ListConfigResourcesResponse unknown = c.call(new ListConfigResourcesRequest()
                    .resourceTypes(List.of((byte) 99)), (short) 1);
            assertThat(unknown.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        }
    }

    @Test
    void badPushesGetKafkasErrorsAndTheBrokerKeepsServing() throws Exception {
        MutableClock clock = new MutableClock(1_000_000);
        try (Brook brook = Brook.builder().clock(clock).config("telemetry.max.bytes", "1000").start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            IncrementalAlterConfigsResponse altered = c.call(set("basic", "metrics", "org.apache.kafka.producer.",
                    "interval.ms", "1000"), (short) 1);
            assertThat(altered.responses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
            IncrementalAlterConfigsResponse bad = c.call(set("basic", "interval.ms", "50"), (short) 1);
            assertThat(bad.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            IncrementalAlterConfigsResponse badMatch = c.call(set("basic", "match", "client_colour=x"), (short) 1);
            assertThat(badMatch.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());

            DescribeConfigsResponse described = c.call(new DescribeConfigsRequest().resources(List.of(
                    new DescribeConfigsRequest.DescribeConfigsResource().resourceType(CLIENT_METRICS).resourceName("basic")
                            .configurationKeys(null))), (short) 4);
            assertThat(described.results().get(0).configs()).extracting(r -> r.name() + "=" + r.value())
                    .containsExactlyInAnyOrder("interval.ms=1000", "metrics=org.apache.kafka.producer.");
            ListConfigResourcesResponse listed = c.call(new ListConfigResourcesRequest(), (short) 0);
            assertThat(listed.configResources()).extracting(ListConfigResourcesResponse.ConfigResource::resourceName)
                    .containsExactly("basic");

            GetTelemetrySubscriptionsResponse sub = c.call(new GetTelemetrySubscriptionsRequest()
                    .clientInstanceId(new UUID(0, 0)), (short) 0);
            assertThat(sub.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(sub.requestedMetrics()).containsExactly("org.apache.kafka.producer.");
            PushTelemetryRequest push = new PushTelemetryRequest().clientInstanceId(sub.clientInstanceId())
                    .subscriptionId(sub.subscriptionId()).compressionType((byte) 0).metrics(new byte[1001]);
            assertThat(pushError(c, push)).isEqualTo(Errors.TELEMETRY_TOO_LARGE);
            clock.advance(1000);
            assertThat(pushError(c, push.metrics(new byte[0]).subscriptionId(sub.subscriptionId() + 1)))
                    .isEqualTo(Errors.UNKNOWN_SUBSCRIPTION_ID);
            GetTelemetrySubscriptionsResponse again = c.call(new GetTelemetrySubscriptionsRequest()
                    .clientInstanceId(sub.clientInstanceId()), (short) 0);
            assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
            byte[] garbage = new byte[200];
            Arrays.fill(garbage, (byte) 0x8f);
            assertThat(pushError(c, push.subscriptionId(sub.subscriptionId()).metrics(garbage)))
                    .isEqualTo(Errors.INVALID_RECORD);
            assertThat(pushError(c, push.metrics(new byte[0]))).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED);
            clock.advance(1000);
            assertThat(pushError(c, push.metrics(new byte[0]))).isEqualTo(Errors.NONE);
            // the same connection still answers anything else
            assertThat(c.<io.brook.wire.message.ApiVersionsResponse>call(new ApiVersionsRequest(), (short) 0).errorCode())
                    .isEqualTo(Errors.NONE.code());
        }
    }

    private static Errors pushError(ProtocolClient c, PushTelemetryRequest push) throws Exception {
        PushTelemetryResponse r = c.call(push, (short) 0);
        return Errors.forCode(r.errorCode());
    }
}
