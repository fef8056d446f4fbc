/**
 * Copying a moved partition between nodes (docs/cluster.md, section 6a): the fetchers a node
 * runs for the partitions it copies from their leader (a replica being added) and for those it
 * leads but must first read to the end from their former leader (the drain of the switch).
 */
package io.brook.server.cluster.replica;
