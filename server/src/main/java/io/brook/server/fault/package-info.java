/**
 * The fault hooks of an embedded broker built with {@code Brook.builder().faults(true)}, behind
 * the public {@link io.brook.server.Faults}: one class per kind of fault, each installed at one
 * seam of its layer.
 * <ul>
 *   <li>Storage ({@link io.brook.server.fault.StorageFaults}): every segment and index file the
 *       broker opens comes through storage's {@code SegmentChannels} wrapped in a
 *       {@link io.brook.server.fault.FaultChannel}, which fails or slows forces, refuses writes
 *       that need space, and keeps {@link io.brook.server.fault.UnforcedWrites} so that a crash
 *       can cut off what was never forced.</li>
 *   <li>Connections ({@link io.brook.server.fault.NetworkFaults}): a
 *       {@link io.brook.server.fault.PausableConnection} first in every connection's pipeline
 *       (the network server's {@code firstHandler} seam) holds what is read and written while
 *       the network is paused, and closes connections on demand.</li>
 *   <li>Requests ({@link io.brook.server.fault.RequestFaults}): a
 *       {@code network.RequestInterceptor} set on the handler table only while a rule or the
 *       request log is on; it rejects, delays and records requests by API key.</li>
 * </ul>
 * A broker built without faults installs none of these: its hot path is production's, plus one
 * volatile read per request (the table's interceptor, null) and one plain read per answer (its
 * delay, 0).
 */
package io.brook.server.fault;
