/** Pure codecs: order-preserving index keys and the stored value encoding. */

export * from './key-codec.js';
export { type JsonColumn, type JsonLineBuffer, JsonProjection } from './json-transcode.js';
export { FieldSelection } from './partial-decode.js';
export * from './value-codec.js';
