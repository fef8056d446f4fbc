package io.brook.wire.generator;

/** An inclusive range of versions, {@code v3+}, {@code v0-12}, {@code v5} or {@code none} in a schema. */
record Versions(int lo, int hi) {
    static final int MAX_VERSION = Short.MAX_VALUE;
    static final Versions NONE = new Versions(1, 0);

    static Versions parse(String s) {
        if (s.startsWith("v")) {
            s = s.substring(1);
        }
        if (s.equals("none")) {
            return NONE;
        }
        if (s.endsWith("+")) {
            return new Versions(Integer.parseInt(s.substring(0, s.length() - 1)), MAX_VERSION);
        }
        int dash = s.indexOf('-');
        if (dash < 0) {
            int v = Integer.parseInt(s);
            return new Versions(v, v);
        }
        return new Versions(Integer.parseInt(s.substring(0, dash)), Integer.parseInt(s.substring(dash + 1)));
    }

    boolean empty() {
        return lo > hi;
    }

    Versions intersect(Versions o) {
        return new Versions(Math.max(lo, o.lo), Math.min(hi, o.hi));
    }
}
