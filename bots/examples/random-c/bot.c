/*
 * random-c: an Arena bot that plays a uniformly random legal action.
 *
 * Written from docs/protocol.md alone, with nothing but the C library: the protocol needs
 * no ZeroMQ or msgpack library. This file holds a small ZeroMQ client (ZMTP 3.0, the NULL
 * security mechanism, a DEALER socket) over the socket ARENA_ENDPOINT names (ipc://PATH, a
 * unix socket, or tcp://ADDRESS:PORT), and a small msgpack writer and reader: enough to send
 * hello, pong and action, and to read each message's type, request_id, nonce, bot_seed and
 * the number of legal_actions, skipping everything else.
 *
 * Everything read from the socket is untrusted: every length is checked against what is
 * left before anything is read, a message is at most MAX_MESSAGE bytes, and skipping a
 * value takes no recursion and no more steps than the message has bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define NAME "random-c"
#define VERSION "1.0"
#define PROTOCOL 1
/* The largest message accepted from the referee (game_start, with the game's tables, is the
   largest: tens of KiB). */
#define MAX_MESSAGE (16u << 20)

static void vsay(const char *format, va_list args) {
    fputs(NAME ": ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
}

/* One line to standard error (the game's log). */
static void say(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsay(format, args);
    va_end(args);
}

/* One line to standard error, then exit with status 1. */
static _Noreturn void die(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsay(format, args);
    va_end(args);
    exit(1);
}

/* ------------------------------------------------------------------ randomness */

/* splitmix64: 64 bits of state, seeded from ARENA_SEED and then from each game's bot_seed,
   so that a game replays the same. */
static uint64_t rng_state;

static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A uniform integer in 0..n-1 (n >= 1): draws below 2^64 mod n are rejected, so that the
   modulo favours no index. */
static uint64_t uniform(uint64_t n) {
    uint64_t threshold = -n % n;
    for (;;) {
        uint64_t x = next_random();
        if (x >= threshold)
            return x % n;
    }
}

/* ------------------------------------------------------------------ the connection */

static int sock = -1;

static void send_all(const void *data, size_t size) {
    const unsigned char *p = data;
    while (size > 0) {
        ssize_t sent = send(sock, p, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            die("cannot send to the referee: %s", strerror(errno));
        p += sent;
        size -= (size_t)sent;
    }
}

static void recv_all(void *data, size_t size) {
    unsigned char *p = data;
    while (size > 0) {
        ssize_t got = recv(sock, p, size, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got == 0)
            die("the referee closed the connection");
        if (got < 0)
            die("cannot read from the referee: %s", strerror(errno));
        p += got;
        size -= (size_t)got;
    }
}

/* Connect to ipc://PATH or tcp://A.B.C.D:PORT. */
static void connect_to(const char *endpoint) {
    if (strncmp(endpoint, "ipc://", 6) == 0) {
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        const char *path = endpoint + 6;
        if (strlen(path) >= sizeof address.sun_path)
            die("the socket path in ARENA_ENDPOINT is too long: %s", path);
        strcpy(address.sun_path, path);
        sock = socket(AF_UNIX, SOCK_STREAM, 0);
        if (sock < 0 || connect(sock, (struct sockaddr *)&address, sizeof address) != 0)
            die("cannot connect to %s: %s", endpoint, strerror(errno));
        return;
    }
    if (strncmp(endpoint, "tcp://", 6) == 0) {
        char host[64];
        const char *colon = strrchr(endpoint + 6, ':');
        size_t length = colon ? (size_t)(colon - (endpoint + 6)) : 0;
        char *end;
        long port = colon ? strtol(colon + 1, &end, 10) : 0;
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        if (!colon || length == 0 || length >= sizeof host || *end != '\0' || port < 1 ||
            port > 65535)
            die("cannot read the address in ARENA_ENDPOINT: %s", endpoint);
        memcpy(host, endpoint + 6, length);
        host[length] = '\0';
        if (inet_pton(AF_INET, host, &address.sin_addr) != 1)
            die("not an IPv4 address in ARENA_ENDPOINT: %s", host);
        sock = socket(AF_INET, SOCK_STREAM, 0);
        if (sock < 0 || connect(sock, (struct sockaddr *)&address, sizeof address) != 0)
            die("cannot connect to %s: %s", endpoint, strerror(errno));
        int one = 1; /* each message leaves at once */
        setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        return;
    }
    die("ARENA_ENDPOINT is neither ipc:// nor tcp://: %s", endpoint);
}

/* ------------------------------------------------------------------ ZMTP 3.0 */

/* Frame flags: more frames follow in this message; the size takes 8 bytes; a command. */
#define FRAME_MORE 0x01
#define FRAME_LONG 0x02
#define FRAME_COMMAND 0x04

/* The received frame, in a buffer that grows as needed (up to MAX_MESSAGE). */
static unsigned char *frame;
static size_t frame_capacity;

/* Read one frame into `frame`; returns its flags and sets *size. */
static int read_frame(size_t *size) {
    unsigned char head[8];
    recv_all(head, 1);
    int flags = head[0];
    if (flags & ~(FRAME_MORE | FRAME_LONG | FRAME_COMMAND))
        die("a frame with unknown flags 0x%02x", flags);
    uint64_t length = 0;
    if (flags & FRAME_LONG) {
        recv_all(head, 8);
        for (int i = 0; i < 8; i++)
            length = length << 8 | head[i];
    } else {
        recv_all(head, 1);
        length = head[0];
    }
    if (length > MAX_MESSAGE)
        die("a frame of %llu bytes, more than this bot accepts", (unsigned long long)length);
    if (length > frame_capacity) {
        unsigned char *bigger = realloc(frame, (size_t)length);
        if (bigger == NULL)
            die("out of memory for a frame of %llu bytes", (unsigned long long)length);
        frame = bigger;
        frame_capacity = (size_t)length;
    }
    recv_all(frame, (size_t)length);
    *size = (size_t)length;
    return flags;
}

/* Send one short frame (at most 255 bytes: every message of this bot is smaller) in one
   piece: two small writes could wait for each other on TCP. */
#define MAX_SENT 255
static void send_frame(int flags, const unsigned char *data, size_t size) {
    unsigned char whole[2 + MAX_SENT];
    if (size > MAX_SENT)
        die("a frame too long to send");
    whole[0] = (unsigned char)flags;
    whole[1] = (unsigned char)size;
    memcpy(whole + 2, data, size);
    send_all(whole, 2 + size);
}

/* The name of a command frame's command ("" if it has none). */
static void command_name(size_t size, char name[256]) {
    size_t length = size > 0 ? frame[0] : 0;
    if (length >= size)
        length = 0;
    if (length > 0)
        memcpy(name, frame + 1, length);
    name[length] = '\0';
}

/* The greetings (signature, version 3.0, the NULL mechanism, as a client), then each side's
   READY command, ours saying that this is a DEALER socket. */
static void handshake(void) {
    unsigned char greeting[64] = {0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 3, 0, 'N', 'U', 'L', 'L'};
    unsigned char theirs[64];
    send_all(greeting, sizeof greeting);
    recv_all(theirs, sizeof theirs);
    if (theirs[0] != 0xFF || !(theirs[9] & 1) || theirs[10] < 3)
        die("the referee does not speak ZMTP 3");
    if (memcmp(theirs + 12, "NULL\0", 5) != 0)
        die("the referee asks for a security mechanism other than NULL");

    static const unsigned char ready[] = "\5READY\13Socket-Type\0\0\0\6DEALER";
    send_frame(FRAME_COMMAND, ready, sizeof ready - 1);
    size_t size;
    char name[256];
    if (!(read_frame(&size) & FRAME_COMMAND))
        die("the referee sent a message before its READY");
    command_name(size, name);
    if (strcmp(name, "READY") != 0)
        die("the referee answered the handshake with %s", name[0] ? name : "nothing");
}

/* The next message of one frame: its size; the frame is in `frame`. Commands (none are
   expected after READY) are passed over, and so are messages of several frames. */
static size_t receive(void) {
    for (;;) {
        size_t size;
        int flags = read_frame(&size);
        if (flags & FRAME_COMMAND) {
            char name[256];
            command_name(size, name);
            if (strcmp(name, "ERROR") == 0)
                die("the referee's ZeroMQ ended the connection (ERROR)");
            continue;
        }
        if (!(flags & FRAME_MORE))
            return size;
        say("ignored a message of several frames");
        while (read_frame(&size) & FRAME_MORE)
            ;
    }
}

/* ------------------------------------------------------------------ msgpack: writing */

/* A message being written: our messages are small and their size is known. */
struct out {
    unsigned char data[MAX_SENT];
    size_t size;
};

static void put(struct out *out, const void *data, size_t size) {
    if (size > sizeof out->data - out->size)
        die("a message too long to write");
    memcpy(out->data + out->size, data, size);
    out->size += size;
}

static void put_byte(struct out *out, unsigned char byte) { put(out, &byte, 1); }

static void put_map(struct out *out, unsigned entries) {
    put_byte(out, (unsigned char)(0x80 | entries)); /* a fixmap: up to 15 */
}

static void put_str(struct out *out, const char *text) {
    size_t length = strlen(text);
    if (length < 32) {
        put_byte(out, (unsigned char)(0xA0 | length));
    } else if (length < 256) {
        put_byte(out, 0xD9);
        put_byte(out, (unsigned char)length);
    } else {
        die("a string too long to write");
    }
    put(out, text, length);
}

static void put_uint(struct out *out, uint64_t value) {
    if (value < 128) {
        put_byte(out, (unsigned char)value);
        return;
    }
    put_byte(out, 0xCF);
    for (int i = 0; i < 8; i++)
        put_byte(out, (unsigned char)(value >> (56 - 8 * i)));
}

/* The two entries every message has first: type and protocol. */
static void put_head(struct out *out, unsigned entries, const char *type) {
    put_map(out, entries);
    put_str(out, "type");
    put_str(out, type);
    put_str(out, "protocol");
    put_uint(out, PROTOCOL);
}

/* ------------------------------------------------------------------ msgpack: reading */

/* What is left of a message being read. */
struct in {
    const unsigned char *p, *end;
};

enum kind { NIL, BOOLEAN, INTEGER, FLOAT, STRING, BINARY, EXTENSION, ARRAY, MAP };

/* One value's header. For a string, binary or extension, its bytes (`data`, `length` of
   them) are read too; for an array or a map, `length` is its count of items or entries,
   which are not read. `raw` and `raw_size` are its encoded bytes (an integer is echoed as
   it came). An integer's value is `uvalue` (`negative` if below zero). */
struct value {
    enum kind kind;
    uint64_t length, uvalue;
    int negative;
    const unsigned char *data, *raw;
    size_t raw_size;
};

/* Take `size` bytes from `in` into *bytes; 0 if there are not that many. */
static int take(struct in *in, uint64_t size, const unsigned char **bytes) {
    if (size > (uint64_t)(in->end - in->p))
        return 0;
    *bytes = in->p;
    in->p += size;
    return 1;
}

/* A big-endian unsigned integer of `size` bytes (1, 2, 4 or 8) from `in`. */
static int take_uint(struct in *in, int size, uint64_t *result) {
    const unsigned char *bytes;
    if (!take(in, (uint64_t)size, &bytes))
        return 0;
    *result = 0;
    for (int i = 0; i < size; i++)
        *result = *result << 8 | bytes[i];
    return 1;
}

/* Read the next value's header into *v (see struct value); 0 if malformed or cut short. */
static int next_value(struct in *in, struct value *v) {
    const unsigned char *start = in->p, *bytes;
    uint64_t extra = 0; /* the type byte of an extension */
    memset(v, 0, sizeof *v);
    if (!take(in, 1, &bytes))
        return 0;
    unsigned b = bytes[0];
    if (b <= 0x7F || b >= 0xE0) {
        v->kind = INTEGER;
        v->negative = b >= 0xE0;
        v->uvalue = v->negative ? (uint64_t)(256 - b) : b; /* the magnitude if negative */
    } else if (b >= 0x80 && b <= 0x8F) {
        v->kind = MAP, v->length = b & 0x0F;
    } else if (b >= 0x90 && b <= 0x9F) {
        v->kind = ARRAY, v->length = b & 0x0F;
    } else if (b >= 0xA0 && b <= 0xBF) {
        v->kind = STRING, v->length = b & 0x1F;
    } else {
        switch (b) {
        case 0xC0: v->kind = NIL; break;
        case 0xC2: case 0xC3: v->kind = BOOLEAN; break;
        case 0xC4: case 0xC5: case 0xC6:
            v->kind = BINARY;
            if (!take_uint(in, 1 << (b - 0xC4), &v->length)) return 0;
            break;
        case 0xC7: case 0xC8: case 0xC9:
            v->kind = EXTENSION;
            if (!take_uint(in, 1 << (b - 0xC7), &v->length) || !take_uint(in, 1, &extra))
                return 0;
            break;
        case 0xCA: case 0xCB:
            v->kind = FLOAT;
            if (!take(in, b == 0xCA ? 4 : 8, &bytes)) return 0;
            break;
        case 0xCC: case 0xCD: case 0xCE: case 0xCF:
            v->kind = INTEGER;
            if (!take_uint(in, 1 << (b - 0xCC), &v->uvalue)) return 0;
            break;
        case 0xD0: case 0xD1: case 0xD2: case 0xD3: {
            int size = 1 << (b - 0xD0);
            if (!take_uint(in, size, &v->uvalue)) return 0;
            v->kind = INTEGER;
            if (v->uvalue >> (8 * size - 1)) { /* below zero: the magnitude of two's complement */
                v->negative = 1;
                v->uvalue = size == 8 ? -v->uvalue : (1ull << (8 * size)) - v->uvalue;
            }
            break;
        }
        case 0xD4: case 0xD5: case 0xD6: case 0xD7: case 0xD8:
            v->kind = EXTENSION, v->length = 1u << (b - 0xD4);
            if (!take_uint(in, 1, &extra)) return 0;
            break;
        case 0xD9: case 0xDA: case 0xDB:
            v->kind = STRING;
            if (!take_uint(in, 1 << (b - 0xD9), &v->length)) return 0;
            break;
        case 0xDC: case 0xDD:
            v->kind = ARRAY;
            if (!take_uint(in, b == 0xDC ? 2 : 4, &v->length)) return 0;
            break;
        case 0xDE: case 0xDF:
            v->kind = MAP;
            if (!take_uint(in, b == 0xDE ? 2 : 4, &v->length)) return 0;
            break;
        default: /* 0xC1 is never used */
            return 0;
        }
    }
    if ((v->kind == STRING || v->kind == BINARY || v->kind == EXTENSION) &&
        !take(in, v->length, &v->data))
        return 0;
    v->raw = start;
    v->raw_size = (size_t)(in->p - start);
    return 1;
}

/* Skip `count` values, with everything inside them; 0 if malformed or cut short. Every value
   takes at least a byte, so a count above the bytes left is malformed: that bounds the
   loop by the message's size, whatever its nesting. */
static int skip(struct in *in, uint64_t count) {
    struct value v;
    while (count > 0) {
        if (count > (uint64_t)(in->end - in->p) || !next_value(in, &v))
            return 0;
        count--;
        if (v.kind == ARRAY)
            count += v.length; /* at most 2^32 - 1: checked against the bytes left next */
        else if (v.kind == MAP)
            count += 2 * v.length;
    }
    return 1;
}

/* Skip what is inside the value whose header was just read (nothing unless a container). */
static int skip_inside(struct in *in, const struct value *v) {
    return skip(in, v->kind == MAP ? 2 * v->length : v->kind == ARRAY ? v->length : 0);
}

/* What this bot reads of a message. */
struct message {
    char type[16];       /* "" if missing or too long to be a type this bot knows */
    struct value nonce;  /* of ping: kind INTEGER if present */
    struct value request_id;
    int has_seed, has_actions;
    uint64_t bot_seed, actions;
    char code[64];       /* of error (cut short if longer) */
};

static int is_key(const struct value *key, const char *name) {
    return key->length == strlen(name) && memcmp(key->data, name, key->length) == 0;
}

static void copy_text(const struct value *v, char *to, size_t capacity) {
    size_t length = v->length < capacity - 1 ? (size_t)v->length : capacity - 1;
    memcpy(to, v->data, length);
    to[length] = '\0';
}

/* Read one message (a map with string keys); 0 if it is not one. */
static int parse(const unsigned char *data, size_t size, struct message *m) {
    struct in in = {data, data + size};
    struct value map, key, v;
    memset(m, 0, sizeof *m);
    if (!next_value(&in, &map) || map.kind != MAP)
        return 0;
    for (uint64_t i = 0; i < map.length; i++) {
        if (!next_value(&in, &key) || key.kind != STRING || !next_value(&in, &v) ||
            !skip_inside(&in, &v))
            return 0;
        if (is_key(&key, "type") && v.kind == STRING && v.length < sizeof m->type)
            copy_text(&v, m->type, sizeof m->type);
        else if (is_key(&key, "legal_actions") && v.kind == ARRAY)
            m->has_actions = 1, m->actions = v.length;
        else if (is_key(&key, "nonce") && v.kind == INTEGER)
            m->nonce = v;
        else if (is_key(&key, "request_id") && v.kind == INTEGER)
            m->request_id = v;
        else if (is_key(&key, "bot_seed") && v.kind == INTEGER && !v.negative)
            m->has_seed = 1, m->bot_seed = v.uvalue;
        else if (is_key(&key, "code") && v.kind == STRING)
            copy_text(&v, m->code, sizeof m->code);
    }
    return in.p == in.end;
}

/* ------------------------------------------------------------------ the bot */

static void send_message(const struct out *out) { send_frame(0, out->data, out->size); }

static void hello(const char *token) {
    struct out out = {.size = 0};
    put_head(&out, 5, "hello");
    put_str(&out, "token");
    put_str(&out, token);
    put_str(&out, "name");
    put_str(&out, NAME);
    put_str(&out, "version");
    put_str(&out, VERSION);
    send_message(&out);
}

/* The start of an answer of `entries` entries: type, protocol and `key`, an integer of the
   referee's message echoed exactly as it came. */
static struct out answer(unsigned entries, const char *type, const char *key,
                         const struct value *echoed) {
    struct out out = {.size = 0};
    put_head(&out, entries, type);
    put_str(&out, key);
    put(&out, echoed->raw, echoed->raw_size);
    return out;
}

/* The seed before the first game_start: ARENA_SEED, else 0 (the referee always sets it). */
static uint64_t first_seed(void) {
    const char *text = getenv("ARENA_SEED");
    if (text == NULL || *text == '\0')
        return 0;
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') {
        say("ARENA_SEED is not a whole number: %s; seeding with 0", text);
        return 0;
    }
    return seed;
}

int main(void) {
    const char *endpoint = getenv("ARENA_ENDPOINT");
    const char *token = getenv("ARENA_TOKEN");
    if (endpoint == NULL || token == NULL)
        die("ARENA_ENDPOINT and ARENA_TOKEN must be set (this bot is started by Arena)");
    if (strlen(token) > 128)
        die("ARENA_TOKEN is longer than a token can be");
    rng_state = first_seed();
    frame_capacity = 4096;
    if ((frame = malloc(frame_capacity)) == NULL)
        die("out of memory");
    connect_to(endpoint);
    handshake();
    hello(token);

    for (;;) {
        size_t size = receive();
        struct message m;
        if (!parse(frame, size, &m)) {
            say("ignored a frame that is not one msgpack map");
            continue;
        }
        if (strcmp(m.type, "ping") == 0 && m.nonce.kind == INTEGER) {
            struct out out = answer(3, "pong", "nonce", &m.nonce);
            send_message(&out);
        } else if (strcmp(m.type, "request") == 0 && m.request_id.kind == INTEGER &&
                   m.has_actions && m.actions > 0) {
            struct out out = answer(4, "action", "request_id", &m.request_id);
            put_str(&out, "index");
            put_uint(&out, uniform(m.actions));
            send_message(&out);
        } else if (strcmp(m.type, "game_start") == 0) {
            if (m.has_seed)
                rng_state = m.bot_seed; /* each game replays the same, whatever came before */
            say("game_start");
        } else if (strcmp(m.type, "welcome") == 0 || strcmp(m.type, "game_end") == 0) {
            say("%s", m.type);
        } else if (strcmp(m.type, "shutdown") == 0) {
            say("shutdown");
            close(sock);
            return 0;
        } else if (strcmp(m.type, "error") == 0) {
            say("error from the referee: %s", m.code);
            close(sock);
            return 1;
        } else {
            say("ignored a message of type '%s'", m.type);
        }
    }
}
