package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.protocol.ApiKey;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's connection creation quotas on a clock moved by hand: an address over its
 * {@code connection_creation_rate} (an ip quota entity) has its connection accepted, left unread
 * and closed after the throttle; over {@code max.connection.creation.rate} new connections are
 * held unread for the throttle and then served.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionCreationRateTest {

    private final MutableClock clock = new MutableClock(1_000_000L);

    private static boolean answers(ProtocolClient c) throws Exception {
        ApiVersionsResponse r = c.call(versions(), (short) 3);
        return r.errorCode() == 0;
    }

    @Test
    void anAddressOverItsConnectionCreationRateIsHeldThenClosed() throws Exception {
        try (Brook brook = Brook.builder().clock(clock).start()) {
            Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
            try (Admin admin = Admin.create(p)) {
                Map<String, String> ip = new HashMap<>();
                ip.put(ClientQuotaEntity.IP, "127.0.0.1");
                admin.alterClientQuotas(List.of(new ClientQuotaAlteration(new ClientQuotaEntity(ip),
                        List.of(new ClientQuotaAlteration.Op("connection_creation_rate", 1.0))))).all()
                        .get(30, TimeUnit.SECONDS);
            }
            List<ProtocolClient> open = new ArrayList<>();
            try {
                // 1 connection/s over the 10 s measured: ten are within the quota
                for (int i = 0; i < 10; i++) {
                    ProtocolClient c = new ProtocolClient(brook.bootstrapServers());
                    open.add(c);
                    assertThat(answers(c)).isTrue();
                }
                ProtocolClient over = new ProtocolClient(brook.bootstrapServers());
                open.add(over);
                over.send(new ApiVersionsRequest(), (short) 3);
                over.raw().setReadTimeout(100);
                assertThatThrownBy(over.raw()::readFrame).as("accepted but not read")
                        .isInstanceOf(SocketTimeoutException.class);
                over.raw().setReadTimeout(30_000);
                clock.advance(1000); // (11 - 10) / 10 * 10 s, capped at one window
                assertThat(over.raw().readFrameOrClose()).as("closed after the throttle").isNull();
            } finally {
                for (ProtocolClient c : open) {
                    c.close();
                }
            }
        }
    }

    @Test
    void aListenerOverMaxConnectionCreationRateHoldsNewConnectionsForTheThrottle() throws Exception {
        try (Brook brook = Brook.builder().clock(clock).config("max.connection.creation.rate", "1").start()) {
            List<ProtocolClient> open = new ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) { // 1/s over the 10 s measured
                    ProtocolClient c = new ProtocolClient(brook.bootstrapServers());
                    open.add(c);
                    assertThat(answers(c)).isTrue();
                }
                // the eleventh takes the rate over: held unread for (11 - 10) / 10 * 10 s, and so is the next
                ProtocolClient held = new ProtocolClient(brook.bootstrapServers());
                ProtocolClient next = new ProtocolClient(brook.bootstrapServers());
                open.add(held);
                open.add(next);
                int first = held.send(versions(), (short) 3);
                int second = next.send(versions(), (short) 3);
                held.raw().setReadTimeout(100);
                assertThatThrownBy(held.raw()::readFrame).isInstanceOf(SocketTimeoutException.class);
                held.raw().setReadTimeout(30_000);
                clock.advance(1000);
                assertThat(held.<ApiVersionsResponse>receive(ApiKey.API_VERSIONS, (short) 3, first).errorCode()).isZero();
                assertThat(next.<ApiVersionsResponse>receive(ApiKey.API_VERSIONS, (short) 3, second).errorCode()).isZero();
            } finally {
                for (ProtocolClient c : open) {
                    c.close();
                }
            }
        }
    }

    private static ApiVersionsRequest versions() {
        return new ApiVersionsRequest().clientSoftwareName("brook-test").clientSoftwareVersion("1");
    }
}
