package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TimestampLookupTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void shouldFindATimestampInsideACompressedBatchWithoutDecompressingItIntoMemory() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        // 60 MiB of records that zstd keeps in a few KiB; the match is the last record
        ByteBuffer large = new RecordBatchBuilder(Compression.ZSTD)
                .append(1000L, null, ByteBuffer.allocate(20 << 20))
                .append(1001L, null, ByteBuffer.allocate(20 << 20))
                .append(1002L, null, ByteBuffer.allocate(20 << 20)).build();
        assertThat(log.append(large, 0).error()).isEqualTo(Errors.NONE);
        log.flush();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        TimestampOffset found = log.offsetForTimestamp(1002L, false);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(found.offset()).isEqualTo(2);
        assertThat(found.timestamp()).isEqualTo(1002L);
        assertThat(allocated).as("bytes allocated by the lookup").isLessThan(4L << 20);
        assertThat(log.offsetForTimestamp(Log.MAX_TIMESTAMP, false).offset()).isEqualTo(2);
    }
}
