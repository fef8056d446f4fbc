package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartupExerciseTest {

    @Test
    void shouldCreateTheTrainingTopicAndStoreOneRecordAcknowledgedByAcksAll() throws Exception {
        try (Brook brook = Brook.builder().start()) {
            StartupExercise.run(new InetSocketAddress("127.0.0.1", brook.port()));

            TopicInfo topic = brook.context().topics().get(StartupExercise.TOPIC);
            assertThat(topic).isNotNull();
            assertThat(brook.context().topics().log(StartupExercise.TOPIC, 0).logEndOffset()).isEqualTo(1);
        }
    }
}
