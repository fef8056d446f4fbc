package io.brook.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.junit.Broker;
import io.brook.junit.BrookTest;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration;
import org.springframework.boot.autoconfigure.kafka.KafkaProperties;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * A Spring Boot application's Kafka beans against Brook without a line of wiring: the extension
 * starts the broker before Spring builds the context and hands its address over in the system
 * property {@code spring.kafka.bootstrap-servers}, which Boot's Kafka auto-configuration reads.
 * {@code @BrookTest} comes before {@code @SpringBootTest} so that its callbacks run first.
 */
@Timeout(120)
@BrookTest(topics = "greetings", bootstrapProperties = "spring.kafka.bootstrap-servers")
@SpringBootTest(classes = GreetingServiceTest.GreetingApp.class, properties = {
        "spring.kafka.consumer.group-id=greeters",
        "spring.kafka.consumer.auto-offset-reset=earliest"})
class GreetingServiceTest {

    /** The application under test: Boot's Kafka auto-configuration and one listener. */
    @Configuration(proxyBeanMethods = false)
    @EnableKafka
    @ImportAutoConfiguration(KafkaAutoConfiguration.class)
    static class GreetingApp {
        @Bean
        Greetings greetings() {
            return new Greetings();
        }
    }

    /** A listener bean that keeps what it received. */
    static class Greetings {
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();

        @KafkaListener(topics = "greetings")
        void onGreeting(String greeting) {
            received.add(greeting);
        }
    }

    @Broker
    String bootstrapServers;

    @Autowired
    KafkaProperties kafkaProperties;

    @Autowired
    KafkaTemplate<String, String> template;

    @Autowired
    Greetings greetings;

    @Test
    void springBootFindsTheBrokerThroughThePropertyHandOff() throws Exception {
        assertThat(kafkaProperties.getBootstrapServers()).containsExactly(bootstrapServers);
        template.send("greetings", "hello").get(30, TimeUnit.SECONDS);
        assertThat(greetings.received.poll(30, TimeUnit.SECONDS)).isEqualTo("hello");
    }
}
