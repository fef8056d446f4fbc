/**
 * The broker's settings: Kafka-style properties parsed once at start-up into an immutable
 * {@link io.brook.server.config.BrokerConfig} (Kafka's names and, where Brook has no reason to
 * differ, Kafka's defaults), and the one {@link io.brook.server.config.Listener} it serves. Depends
 * on nothing else in the server; every other package reads it.
 */
package io.brook.server.config;
