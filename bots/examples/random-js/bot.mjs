// random-js: an Arena bot that plays a uniformly random legal action.
//
// Written from docs/protocol.md alone (protocol version 1): one ZeroMQ DEALER
// socket connected to ARENA_ENDPOINT, every message one frame holding one
// msgpack map with string keys, "type" and "protocol" in every map.
//
// Randomness comes from a seeded mulberry32 generator, never Math.random, so a
// game can be replayed: the seed is ARENA_SEED if set, else a hash of
// ARENA_TOKEN (see README.md).

import { Dealer } from "zeromq";
import { Encoder, Decoder } from "@msgpack/msgpack";

const PROTOCOL = 1;
const NAME = "random-js";
const VERSION = "1.0";

// 64-bit integers on the wire (a large nonce or request_id) decode to BigInt
// and encode back unchanged, so echoed values are always exact.
const encoder = new Encoder({ useBigInt64: true });
const decoder = new Decoder({ useBigInt64: true });

function log(text) {
  process.stderr.write(`${NAME}: ${text}\n`);
}

// ---------------------------------------------------------------- randomness

// 32-bit FNV-1a over the UTF-8 bytes of a string.
function fnv1a32(text) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

// A seed as an unsigned 32-bit integer. A decimal integer (possibly negative
// or larger than 32 bits) is taken modulo 2^32; any other text is hashed.
function seedFrom(text) {
  const trimmed = text.trim();
  if (/^[+-]?\d+$/.test(trimmed)) {
    return Number(BigInt.asUintN(32, BigInt(trimmed)));
  }
  return fnv1a32(text);
}

// mulberry32: a small generator with 32 bits of state; returns a function
// producing uniformly distributed unsigned 32-bit integers.
function mulberry32(seed) {
  let state = seed >>> 0;
  return function nextUint32() {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

// A uniform integer in 0..n-1 (1 <= n <= 2^32), by rejection sampling so that
// no index is favoured by the modulo.
function uniformIndex(nextUint32, n) {
  const range = 2 ** 32;
  const limit = range - (range % n);
  for (;;) {
    const x = nextUint32();
    if (x < limit) return x % n;
  }
}

// ------------------------------------------------------------------ protocol

function isInt(value) {
  return typeof value === "bigint" || Number.isInteger(value);
}

function isPlainMap(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    !(value instanceof Uint8Array);
}

async function send(socket, message) {
  await socket.send(encoder.encode({ protocol: PROTOCOL, ...message }));
}

async function main() {
  const endpoint = process.env.ARENA_ENDPOINT;
  const token = process.env.ARENA_TOKEN;
  if (!endpoint || token === undefined) {
    log("ARENA_ENDPOINT and ARENA_TOKEN must be set (this bot is started by Arena)");
    return 1;
  }
  const refereeProtocol = process.env.ARENA_PROTOCOL;
  if (refereeProtocol !== undefined && refereeProtocol.trim() !== String(PROTOCOL)) {
    log(`referee announces protocol ${refereeProtocol}, this bot speaks ${PROTOCOL}`);
  }

  let seed;
  if (process.env.ARENA_SEED !== undefined && process.env.ARENA_SEED !== "") {
    seed = seedFrom(process.env.ARENA_SEED);
    log(`seed ${seed} (from ARENA_SEED)`);
  } else {
    seed = fnv1a32(token);
    log("seed derived from ARENA_TOKEN");
  }
  let nextUint32 = mulberry32(seed);

  // linger: let queued messages leave on close, but never block exit for long.
  const socket = new Dealer({ linger: 1000 });
  socket.connect(endpoint);

  await send(socket, { type: "hello", token, name: NAME, version: VERSION });

  let welcomed = false;
  for await (const frames of socket) {
    if (frames.length !== 1) {
      log(`ignored a message of ${frames.length} frames (expected 1)`);
      continue;
    }
    let message;
    try {
      message = decoder.decode(frames[0]);
    } catch (error) {
      log(`ignored a frame that is not msgpack: ${error.message}`);
      continue;
    }
    if (!isPlainMap(message) || typeof message.type !== "string") {
      log("ignored a message that is not a map with a string \"type\"");
      continue;
    }
    if (message.protocol !== PROTOCOL) {
      log(`message "${message.type}" has protocol ${String(message.protocol)}, expected ${PROTOCOL}`);
    }

    switch (message.type) {
      case "welcome":
        welcomed = true;
        log(`welcome from ${message.server} ${message.server_version}`);
        break;

      case "error": {
        // Before welcome this is a refused hello (bad_token, protocol_mismatch).
        // Afterwards the referee has stopped using this bot: nothing left to do.
        const when = welcomed ? "" : " (hello refused)";
        process.stderr.write(`${NAME}: error${when} [${message.code}]: ${message.message}\n`);
        socket.close();
        return 1;
      }

      case "ping":
        if (!isInt(message.nonce)) {
          log("ping without an integer nonce, not answered");
          break;
        }
        await send(socket, { type: "pong", nonce: message.nonce });
        break;

      case "game_start":
        log(`game_start ${message.game_id}: ${message.game} (${message.rules_version}), ` +
          `seat ${message.seat} of ${message.num_players}`);
        // A process may serve several games: reseed from each game's bot_seed so a game plays
        // the same whatever this process played before.
        if (isInt(message.bot_seed)) {
          nextUint32 = mulberry32(seedFrom(String(message.bot_seed)));
        }
        break;

      case "request": {
        const actions = message.legal_actions;
        if (!isInt(message.request_id) || !Array.isArray(actions) || actions.length === 0) {
          log("request without an integer request_id and a non-empty legal_actions, not answered");
          break;
        }
        const index = uniformIndex(nextUint32, actions.length);
        await send(socket, { type: "action", request_id: message.request_id, index });
        break;
      }

      case "game_end":
        log(`game_end ${message.game_id}: scores ${JSON.stringify(message.scores, intReplacer)}, ` +
          `ranks ${JSON.stringify(message.ranks, intReplacer)}`);
        break;

      case "shutdown":
        log(`shutdown (${message.reason})`);
        socket.close();
        return 0;

      default:
        log(`ignored a message of unknown type "${message.type}"`);
    }
  }
  log("socket closed without shutdown");
  return 1;
}

function intReplacer(_key, value) {
  return typeof value === "bigint" ? value.toString() : value;
}

main().then(
  (status) => process.exit(status),
  (error) => {
    log(`fatal: ${error && error.stack ? error.stack : error}`);
    process.exit(1);
  },
);
