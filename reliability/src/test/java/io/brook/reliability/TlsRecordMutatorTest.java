package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TlsRecordMutatorTest {
    private static List<byte[]> hellos;

    @BeforeAll
    static void recordHellos() throws Exception {
        hellos = new ArrayList<>();
        for (String protocol : List.of("TLSv1.3", "TLSv1.2")) {
            SSLEngine engine = SSLContext.getDefault().createSSLEngine("localhost", 9093);
            engine.setUseClientMode(true);
            engine.setEnabledProtocols(new String[] {protocol});
            hellos.add(TlsSession.clientHello(engine));
        }
    }

    @Test
    void recordedHellosAreOneClientHelloRecordEach() {
        for (byte[] hello : hellos) {
            assertThat(hello[0]).isEqualTo(TlsRecordMutator.HANDSHAKE);
            assertThat(TlsRecordMutator.recordLength(hello, 0)).isEqualTo(hello.length - TlsRecordMutator.RECORD_HEADER);
            assertThat(hello[TlsRecordMutator.RECORD_HEADER]).as("handshake type ClientHello").isEqualTo((byte) 1);
        }
    }

    @Test
    void sameSeedSameFlights() {
        TlsRecordMutator a = new TlsRecordMutator(hellos, new Random(9));
        TlsRecordMutator b = new TlsRecordMutator(hellos, new Random(9));
        for (int i = 0; i < 1000; i++) {
            assertThat(a.next().bytes()).isEqualTo(b.next().bytes());
        }
    }

    @Test
    void everyKindIsMadeAndLengthsThatPromiseMoreEndTheConnection() {
        TlsRecordMutator m = new TlsRecordMutator(hellos, new Random(1));
        Set<TlsRecordMutator.Kind> kinds = EnumSet.noneOf(TlsRecordMutator.Kind.class);
        for (int i = 0; i < 5000; i++) {
            TlsRecordMutator.Flight f = m.next();
            kinds.add(f.kind());
            switch (f.kind()) {
                case VALID -> assertThat(hellos).anyMatch(h -> Arrays.equals(h, f.bytes()));
                case RECORD_LENGTH -> assertThat(f.closeAfter()).isEqualTo(
                        TlsRecordMutator.recordLength(f.bytes(), 0) > f.bytes().length - TlsRecordMutator.RECORD_HEADER);
                case BODY -> {
                    assertThat(TlsRecordMutator.recordLength(f.bytes(), 0))
                            .isEqualTo(f.bytes().length - TlsRecordMutator.RECORD_HEADER);
                    assertThat(f.closeAfter()).isFalse();
                }
                case FRAGMENTS -> assertThat(hellos).anyMatch(h -> Arrays.equals(payloads(h), payloads(f.bytes())));
                case TRUNCATED -> assertThat(f.closeAfter()).isTrue();
                default -> {
                }
            }
        }
        assertThat(kinds).isEqualTo(EnumSet.allOf(TlsRecordMutator.Kind.class));
    }

    /** Fragments carry the same handshake bytes in records of at most the size asked for. */
    @Test
    void fragmentsKeepTheHandshakeBytes() {
        byte[] two = ByteBuffer.allocate(hellos.get(0).length + hellos.get(1).length).put(hellos.get(0))
                .put(hellos.get(1)).array();
        for (int size = 1; size <= 8; size++) {
            byte[] cut = TlsRecordMutator.fragments(two, size);
            assertThat(payloads(cut)).isEqualTo(payloads(two));
            for (int at = 0; at < cut.length; at += TlsRecordMutator.RECORD_HEADER + TlsRecordMutator.recordLength(cut, at)) {
                assertThat(cut[at]).isEqualTo(TlsRecordMutator.HANDSHAKE);
                assertThat(TlsRecordMutator.recordLength(cut, at)).isBetween(1, size);
            }
        }
    }

    @Test
    void seedsShorterThanARecordAndHandshakeHeaderAreRefused() {
        assertThatThrownBy(() -> new TlsRecordMutator(List.of(new byte[8]), new Random(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** The records' fragments, concatenated. */
    private static byte[] payloads(byte[] flight) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (at + TlsRecordMutator.RECORD_HEADER <= flight.length) {
            int length = TlsRecordMutator.recordLength(flight, at);
            out.write(flight, at + TlsRecordMutator.RECORD_HEADER, length);
            at += TlsRecordMutator.RECORD_HEADER + length;
        }
        return out.toByteArray();
    }
}
