/**
 * KIP-714 client telemetry: the client metrics subscriptions (CLIENT_METRICS config resources),
 * the client instances that fetch them and push their metrics, and the latest pushed values,
 * which the Prometheus endpoint shows labelled by client. {@link io.brook.server.telemetry.ClientTelemetry}
 * is the entry point; the handlers in {@code api} call it.
 */
package io.brook.server.telemetry;
