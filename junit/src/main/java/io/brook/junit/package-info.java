/**
 * Brook as the test broker of JUnit 5: {@link io.brook.junit.BrookTest} starts brokers
 * in-process (tens of milliseconds each) and {@link io.brook.junit.Broker} hands them to the test.
 * The faults a test injects are the {@link io.brook.server.Brook} handle's own hooks; this package
 * only manages brokers' lifetimes, topics, injection and the system-property hand-off.
 * Threading: nothing here is static and mutable; each broker lives in the store of the JUnit
 * context it belongs to (the class's or the method's), so parallel tests see only their own.
 */
package io.brook.junit;
