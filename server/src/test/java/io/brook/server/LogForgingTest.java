package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client-supplied name with a line break must not forge a line of the broker's log (the
 * reproduction of RELIABILITY.md's finding 5). slf4j-simple, the tests' binding, writes to
 * whatever {@code System.err} is at the time of each line.
 */
@Timeout(60)
class LogForgingTest {

    private static final String FORGED = "2026-01-01T00:00:00.000Z [main] ERROR forged - this line came from a client";

    @Test
    void shouldLogATopicNameWithANewlineAsOneLine() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        try (Brook b = Brook.builder().start()) {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try (RawClient c = new RawClient(new InetSocketAddress("127.0.0.1", b.port()))) {
                c.sendFrame(acksZeroProduceOfNullRecords("x\n" + FORGED));
                // the failed acks=0 produce closes the connection, with a WARN naming the topic
                assertThat(c.closedByBroker()).isTrue();
            }
        } finally {
            System.setErr(original);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        List<String> naming = lines.stream().filter(l -> l.contains("forged")).toList();
        assertThat(naming).isNotEmpty();
        assertThat(naming).allSatisfy(l -> {
            assertThat(l).doesNotStartWith(FORGED);
            assertThat(l).contains("x\\n" + FORGED);
        });
    }

    /** Produce v3, acks=0, one topic with partition 0 and null records. */
    private static ByteBuffer acksZeroProduceOfNullRecords(String topic) {
        byte[] client = "kcat".getBytes(StandardCharsets.UTF_8);
        byte[] name = topic.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(64 + client.length + name.length);
        b.putShort((short) 0).putShort((short) 3).putInt(1).putShort((short) client.length).put(client);
        b.putShort((short) -1).putShort((short) 0).putInt(1000);
        b.putInt(1).putShort((short) name.length).put(name);
        b.putInt(1).putInt(0).putInt(-1);
        return b.flip();
    }
}
