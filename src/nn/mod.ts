/**
 * `pt.nn`: torch.nn.functional's functions in camelCase (functional.ts: softmax and its log forms, linear, oneHot and the
 * losses; layers.ts: activations, dropout, embedding, the normalizations; attention.ts: scaled dot-product attention; conv.ts: pad, convolutions, pools,
 * interpolate).
 */
export * from "./functional.ts";
export * from "./layers.ts";
export * from "./attention.ts";
export * from "./conv.ts";
