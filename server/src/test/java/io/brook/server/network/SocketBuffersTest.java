package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.config.BrokerConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Kafka's {@code socket.send.buffer.bytes} and {@code socket.receive.buffer.bytes}: fixed sizes by
 * default, so that a client that never reads cannot make the kernel hold an autotuned send
 * buffer of megabytes for it (a thousand of them put every socket of the machine under the
 * kernel's TCP memory pressure).
 */
class SocketBuffersTest {

    @Test
    void shouldGiveClientSocketsKafkasSendBufferSizeByDefaultAndAnAutotunedReceiveBuffer() {
        ServerBootstrap b = new ServerBootstrap();
        NetworkServer.socketBuffers(b, BrokerConfig.defaults());
        assertThat(b.config().childOptions()).containsEntry(ChannelOption.SO_SNDBUF, 102_400)
                .doesNotContainKey(ChannelOption.SO_RCVBUF);
        assertThat(b.config().options()).doesNotContainKey(ChannelOption.SO_RCVBUF);
    }

    @Test
    void shouldSetAReceiveBufferOnTheListenerAndItsConnectionsWhenAsked() {
        ServerBootstrap b = new ServerBootstrap();
        NetworkServer.socketBuffers(b, BrokerConfig.parse(Map.of("socket.receive.buffer.bytes", "65536")));
        assertThat(b.config().childOptions()).containsEntry(ChannelOption.SO_RCVBUF, 65_536);
        assertThat(b.config().options()).as("accepted sockets start with it").containsEntry(ChannelOption.SO_RCVBUF, 65_536);
    }

    @Test
    void shouldLeaveTheOperatingSystemsSizesWhenAskedWithMinusOne() {
        ServerBootstrap b = new ServerBootstrap();
        NetworkServer.socketBuffers(b, BrokerConfig.parse(Map.of("socket.send.buffer.bytes", "-1",
                "socket.receive.buffer.bytes", "-1")));
        assertThat(b.config().childOptions()).doesNotContainKeys(ChannelOption.SO_SNDBUF, ChannelOption.SO_RCVBUF);
        assertThat(b.config().options()).doesNotContainKey(ChannelOption.SO_RCVBUF);
    }
}
