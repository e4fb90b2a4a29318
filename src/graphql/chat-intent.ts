/**
 * What the /chat demo understands: an order id (`ord_1002`) -> read that order; a status word in English or
 * Portuguese, from the synonyms in policies/graphql/inputs.json (`paid orders`, `pedidos pagos`) -> search
 * by that status; anything else -> examples of what to ask. Pure functions over the text.
 */
import { foldWord, type EnumNormaliser } from "./input-normalise";

export type ChatIntent = { kind: "order"; id: string } | { kind: "search"; status: string } | { kind: "help" };

const ORDER_ID = /\bord_[A-Za-z0-9_-]{1,40}/i;
const PORTUGUESE =
  /\b(pedidos?|pagos?|pagas?|pendentes?|me traga|detalhe|quais|qual|mostre|listar?|enviados?|cancelados?|reembolsados?)\b/;

export function isPortuguese(text: string): boolean {
  return PORTUGUESE.test(foldWord(text));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function understand(text: string, statuses: EnumNormaliser | undefined): ChatIntent {
  const id = ORDER_ID.exec(text)?.[0];
  if (id) return { kind: "order", id };
  if (statuses) {
    const folded = foldWord(text);
    for (const [word, value] of statuses.words) {
      if (new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(word)}($|[^\\p{L}\\p{N}_])`, "u").test(folded))
        return { kind: "search", status: value };
    }
  }
  return { kind: "help" };
}
