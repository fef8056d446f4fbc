/**
 * Time for the broker's delayed operations: the {@link io.brook.server.time.Timer} that fires
 * long-poll fetch deadlines, acks=all produce time-outs and idle-connection checks. In production
 * a {@link io.brook.server.time.WheelTimer} (Netty's hashed wheel on the monotonic clock); with a
 * clock given to {@code Brook.builder().clock(...)}, a {@link io.brook.server.time.ClockTimer}
 * that follows that clock, so that tests run those deadlines on virtual time. Depends on nothing
 * else in the server.
 */
package io.brook.server.time;
