package io.brook.wire.protocol;

/** UTF-8 length computation without encoding (and so without allocating). */
public final class Utf8 {

    private Utf8() {
    }

    /**
     * Number of bytes of the UTF-8 encoding of {@code s}, matching
     * {@code s.getBytes(UTF_8).length}: unpaired surrogates count as the 1-byte replacement '?'.
     */
    public static int encodedLength(String s) {
        int n = s.length();
        int bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                bytes += 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 2; // 4 bytes for 2 chars
                i++;
            } else if (Character.isSurrogate(c)) {
                // unpaired surrogate: String.getBytes writes '?' (1 byte)
            } else {
                bytes += 2;
            }
        }
        return bytes;
    }
}
