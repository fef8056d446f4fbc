/**
 * File-system primitives with one error policy: durable replacement of small files, atomic
 * renames with the directory forced, recursive deletion, and the reading of small line files.
 * Used by storage, the coordinators and the server alike.
 */
package io.brook.storage.file;
