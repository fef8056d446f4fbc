/**
 * Tests written as a project that uses Brook as its test broker would write them; each class is
 * one recipe of docs/test-broker.md: a plain JUnit test ({@code PlainJUnitExampleTest}), a
 * consumer's at-least-once delivery across a crash ({@code AtLeastOnceConsumerExampleTest}), a
 * producer's retries through errors a real cluster gives while leadership moves or replicas lag
 * ({@code ProducerRetriesExampleTest}), and idempotence when connections drop
 * ({@code IdempotentProducerExampleTest}). Only {@code io.brook.junit} and
 * {@code io.brook.server.Brook} are used from Brook.
 */
package io.brook.junit.examples;
