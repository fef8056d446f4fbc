package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.launch.StartupExercise;
import io.brook.server.topic.Topic;
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

            Topic topic = brook.topics().get(StartupExercise.TOPIC);
            assertThat(topic).isNotNull();
            assertThat(brook.topics().log(StartupExercise.TOPIC, 0).logEndOffset()).isEqualTo(1);
        }
    }
}
