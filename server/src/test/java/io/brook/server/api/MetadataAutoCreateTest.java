package io.brook.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MetadataAutoCreateTest {

    @Test
    void shouldAutoCreateAtMostTenThousandPartitionsPerRequest() {
        assertThat(MetadataHandler.creatable(1)).isEqualTo(10_000);
        assertThat(MetadataHandler.creatable(3)).isEqualTo(3_333);
        assertThat(MetadataHandler.creatable(4_000)).isEqualTo(2);
        assertThat(MetadataHandler.creatable(10_000)).isEqualTo(1);
    }
}
