// The browser's blind-signature client (static/js/blindrsa.js) under node, driven by
// tests/blindrsa/test_protocol.py against the Python server: reads
// {"public_key", "message"} (base64url) on a line, answers {"prepared_message",
// "blinded_message"}, reads {"blind_signature"}, answers {"prepared_message", "signature"} or
// {"error": code}. The random source is node's crypto, as the page's is the browser's.
import { createInterface } from "node:readline";

import {
  BlindRsaError,
  base64urlDecode,
  base64urlEncode,
  blind,
  finalize,
  importPublicKey,
  prepare,
} from "../../static/js/blindrsa.js";

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function readJson() {
  const { value, done } = await lines.next();
  if (done) {
    throw new Error("stdin closed before the expected line");
  }
  return JSON.parse(value);
}

const request = await readJson();
const publicKey = await importPublicKey(request.public_key);
const prepared = prepare(base64urlDecode(request.message), globalThis.crypto);
const { blindedMessage, inverse } = await blind(publicKey, prepared, globalThis.crypto);
process.stdout.write(
  `${JSON.stringify({
    prepared_message: base64urlEncode(prepared),
    blinded_message: base64urlEncode(blindedMessage),
  })}\n`,
);

const answer = await readJson();
try {
  const signature = await finalize(
    publicKey,
    prepared,
    base64urlDecode(answer.blind_signature),
    inverse,
  );
  process.stdout.write(
    `${JSON.stringify({
      prepared_message: base64urlEncode(prepared),
      signature: base64urlEncode(signature),
    })}\n`,
  );
} catch (error) {
  if (!(error instanceof BlindRsaError)) {
    throw error;
  }
  process.stdout.write(`${JSON.stringify({ error: error.code })}\n`);
}
