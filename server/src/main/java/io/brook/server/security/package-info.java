/**
 * Security, configured with Kafka's names: each listener's protocol and TLS material
 * ({@link io.brook.server.security.ListenerSecurity}, {@link io.brook.server.security.TlsSettings}),
 * and each connection's authentication state and principal
 * ({@link io.brook.server.security.Session}) with the SASL mechanisms behind it. Free of Netty:
 * the network layer turns {@link io.brook.server.security.TlsSettings} into its TLS handler, and
 * the SASL request handlers (in {@code api.security}) drive the session.
 */
package io.brook.server.security;
