package io.brook.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FileRecordsTest {
    @TempDir
    Path tmp;

    @Test
    void shouldTransferExactlyTheSliceBytes() throws Exception {
        try (LogFixture fx = new LogFixture(tmp, Map.of())) {
            Log log = fx.open();
            log.append(Batches.batch(1, 3, "a"), 0);
            log.append(Batches.batch(2, 3, "b"), 0);
            log.flush();
            FileRecords fr = log.read(3, Integer.MAX_VALUE, true).records();
            assertThat(fr.firstBatchBaseOffset()).isEqualTo(3);
            assertThat(fr.position()).isPositive();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (WritableByteChannel ch = Channels.newChannel(out)) {
                long sent = 0;
                while (sent < fr.sizeInBytes()) {
                    sent += fr.transferTo(ch, sent, 7);
                }
            }
            assertThat(ByteBuffer.wrap(out.toByteArray())).isEqualTo(fr.readAll());
            assertThat(Batches.records(ByteBuffer.wrap(out.toByteArray()))).extracting(Batches.Rec::offset)
                    .containsExactly(3L, 4L, 5L);
        }
    }
}
