package io.brook.server.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibrariesTest {

    @TempDir
    Path tmp;

    private Path jar(String name, String... entries) throws Exception {
        Path jar = tmp.resolve(name);
        try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out)) {
            for (String e : entries) {
                zip.putNextEntry(new ZipEntry(e));
                if (!e.endsWith("/")) {
                    zip.write(("content of " + e).getBytes(StandardCharsets.UTF_8));
                }
                zip.closeEntry();
            }
        }
        return jar;
    }

    @Test
    void shouldCopyOnlyNettysNativeLibrariesOutOfTheJars() throws Exception {
        Path epoll = jar("epoll.jar", "META-INF/", "META-INF/native/", "META-INF/native/libnetty_transport_native_epoll_x86_64.so",
                "io/netty/channel/epoll/Native.class");
        Path other = jar("other.jar", "META-INF/native/libother.so", "META-INF/native/sub/libnetty_nested.so",
                "META-INF/native/libnetty_readme.txt");
        Path dir = tmp.resolve("native");

        List<Path> copied = NativeLibraries.extract(List.of(epoll, other), dir);

        assertThat(copied).containsExactly(dir.resolve("libnetty_transport_native_epoll_x86_64.so"));
        assertThat(Files.readString(copied.get(0)))
                .isEqualTo("content of META-INF/native/libnetty_transport_native_epoll_x86_64.so");
        try (var listing = Files.list(dir)) {
            assertThat(listing).containsExactly(dir.resolve("libnetty_transport_native_epoll_x86_64.so"));
        }
    }

    @Test
    void shouldReplaceALibraryLeftByAnEarlierBuild() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("native"));
        Files.writeString(dir.resolve("libnetty_x.so"), "old");

        NativeLibraries.extract(List.of(jar("x.jar", "META-INF/native/libnetty_x.so")), dir);

        assertThat(Files.readString(dir.resolve("libnetty_x.so"))).isEqualTo("content of META-INF/native/libnetty_x.so");
    }
}
