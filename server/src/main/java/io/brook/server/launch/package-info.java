/**
 * What {@code bin/brook} runs besides the broker: the copy of Netty's native epoll library out of
 * its jar (loaded from {@code java.library.path} it saves a temporary file per start), and the
 * start-up exercise that sends the broker a producer's and a consumer's first requests during the
 * class-data-sharing training run. Neither is part of a running broker's request path.
 */
package io.brook.server.launch;
