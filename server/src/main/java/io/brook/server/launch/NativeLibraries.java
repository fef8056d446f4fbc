package io.brook.server.launch;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * {@code bin/brook}'s helper that copies Netty's native libraries (the epoll transport's
 * {@code META-INF/native/libnetty_*.so}) out of the jars on the class path into a directory, once
 * per build; the broker then runs with {@code -Djava.library.path=<that directory>}.
 *
 * <p>Netty loads its native library from {@code java.library.path} when it finds it there;
 * otherwise it copies it out of its jar into a new temporary file on every start, whose random
 * name initialises the JDK's secure random generator: together ~30 ms of a start-up, measured.
 *
 * <pre>java -cp CLASSPATH io.brook.server.launch.NativeLibraries DIR</pre>
 */
final class NativeLibraries {

    static final String PREFIX = "META-INF/native/libnetty_";
    static final String SUFFIX = ".so";

    private NativeLibraries() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: NativeLibraries DIR");
            System.exit(2);
        }
        List<Path> jars = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.endsWith(".jar")) {
                jars.add(Path.of(entry));
            }
        }
        List<Path> copied = extract(jars, Path.of(args[0]));
        if (copied.isEmpty()) {
            System.exit(1);
        }
    }

    /** Copies every {@code META-INF/native/libnetty_*.so} of the jars into {@code dir}; returns the copies. */
    static List<Path> extract(List<Path> jars, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> copied = new ArrayList<>();
        for (Path jar : jars) {
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    ZipEntry e = entries.nextElement();
                    String name = e.getName();
                    if (e.isDirectory() || !name.startsWith(PREFIX) || !name.endsWith(SUFFIX)
                            || name.indexOf('/', PREFIX.length()) >= 0) {
                        continue;
                    }
                    Path target = dir.resolve(name.substring(name.lastIndexOf('/') + 1));
                    Path tmp = dir.resolve(target.getFileName() + ".tmp");
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                    }
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                    copied.add(target);
                }
            }
        }
        return copied;
    }
}
