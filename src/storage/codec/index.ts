/** Pure codecs: order-preserving index keys and the stored value encoding. */

export * from './key-codec.js';
export { type JsonColumn, JsonProjection } from './json-transcode.js';
export { FieldSelection } from './partial-decode.js';
export * from './value-codec.js';
