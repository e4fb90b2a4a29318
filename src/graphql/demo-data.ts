/**
 * DEMO DATA for the embedded demo upstream: invented orders, partitioned per organization. Acme holds the
 * three orders of the original example (ord_1001 Ana 120.50 PAID, ord_1002 Bruno 89.90 PENDING, ord_1003
 * Carla 450.00 PAID) plus generated ones; every other organization gets its own generated set with its own
 * ids. Generation is deterministic (seeded by the organization id), so tests and examples are stable.
 */
export interface DemoItem {
  sku: string;
  description: string;
  quantity: number;
  unitPrice: number;
}

export interface DemoCustomer {
  id: string;
  name: string;
  email: string;
}

export interface DemoOrder {
  id: string;
  customer: DemoCustomer;
  total: number;
  currency: string;
  status: "PENDING" | "PAID" | "SHIPPED" | "CANCELLED" | "REFUNDED";
  createdAt: string;
  items: DemoItem[];
}

const GENERATED_PER_ORGANIZATION = 30;
/** Where each organization's order numbers start; others start at 9001. */
const ID_BLOCKS: Readonly<Record<string, number>> = { acme: 1001, globex: 2001 };
const CURRENCIES: Readonly<Record<string, string>> = { acme: "BRL", globex: "USD" };
const NEWEST = Date.UTC(2025, 5, 30, 12, 0, 0);

const NAMES = [
  "Diego",
  "Elisa",
  "Fabio",
  "Gabriela",
  "Heitor",
  "Isabela",
  "Joao",
  "Karina",
  "Lucas",
  "Marina",
  "Nuno",
  "Olivia",
  "Paulo",
  "Renata",
  "Sofia",
  "Tiago",
  "Ursula",
  "Vitor",
  "Wanda",
  "Xavier",
  "Yara",
  "Zeca",
] as const;
const PRODUCTS = [
  { sku: "SKU-COF-01", description: "Coffee maker", unitPrice: 120.5 },
  { sku: "SKU-MUG-02", description: "Ceramic mug", unitPrice: 18.9 },
  { sku: "SKU-GRN-03", description: "Coffee grinder", unitPrice: 225.0 },
  { sku: "SKU-BNS-04", description: "Coffee beans, 1 kg", unitPrice: 89.9 },
  { sku: "SKU-FLT-05", description: "Paper filters, 100", unitPrice: 12.4 },
  { sku: "SKU-KTL-06", description: "Gooseneck kettle", unitPrice: 149.0 },
  { sku: "SKU-SCL-07", description: "Kitchen scale", unitPrice: 64.5 },
] as const;
const STATUSES: ReadonlyArray<DemoOrder["status"]> = [
  "PAID",
  "PAID",
  "PAID",
  "PENDING",
  "PENDING",
  "SHIPPED",
  "SHIPPED",
  "CANCELLED",
  "REFUNDED",
];

/** A small deterministic PRNG (mulberry32) seeded from a string. */
function seededRandom(seed: string): () => number {
  let state = 2166136261;
  for (let i = 0; i < seed.length; i++) state = Math.imul(state ^ seed.charCodeAt(i), 16777619);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function customerFor(organizationId: string, name: string, index: number): DemoCustomer {
  return {
    id: `cus_${String(index + 1).padStart(3, "0")}`,
    name,
    email: `${name.toLowerCase()}@customers.${organizationId}.example`,
  };
}

function originalOrders(organizationId: string): DemoOrder[] {
  const at = (hoursBeforeNewest: number) => new Date(NEWEST - hoursBeforeNewest * 3_600_000).toISOString();
  return [
    {
      id: "ord_1001",
      customer: customerFor(organizationId, "Ana", 100),
      total: 120.5,
      currency: "BRL",
      status: "PAID",
      createdAt: at(900),
      items: [{ ...PRODUCTS[0], quantity: 1 }],
    },
    {
      id: "ord_1002",
      customer: customerFor(organizationId, "Bruno", 101),
      total: 89.9,
      currency: "BRL",
      status: "PENDING",
      createdAt: at(890),
      items: [{ ...PRODUCTS[3], quantity: 1 }],
    },
    {
      id: "ord_1003",
      customer: customerFor(organizationId, "Carla", 102),
      total: 450.0,
      currency: "BRL",
      status: "PAID",
      createdAt: at(880),
      items: [{ ...PRODUCTS[2], quantity: 2 }],
    },
  ];
}

/** The demo orders of one organization, newest first. A fresh copy on every call. */
export function demoOrdersFor(organizationId: string): DemoOrder[] {
  const random = seededRandom(`arbiter-demo:${organizationId}`);
  const originals = organizationId === "acme" ? originalOrders(organizationId) : [];
  const firstNumber = (ID_BLOCKS[organizationId] ?? 9001) + originals.length;
  const currency = CURRENCIES[organizationId] ?? "EUR";
  const generated: DemoOrder[] = [];
  for (let i = 0; i < GENERATED_PER_ORGANIZATION; i++) {
    const nameIndex = Math.floor(random() * NAMES.length);
    const lines = 1 + Math.floor(random() * 3);
    const items: DemoItem[] = [];
    for (let line = 0; line < lines; line++) {
      const product = PRODUCTS[Math.floor(random() * PRODUCTS.length)]!;
      items.push({ ...product, quantity: 1 + Math.floor(random() * 3) });
    }
    generated.push({
      id: `ord_${firstNumber + i}`,
      customer: customerFor(organizationId, NAMES[nameIndex]!, nameIndex),
      total: round2(items.reduce((sum, item) => sum + item.quantity * item.unitPrice, 0)),
      currency,
      status: STATUSES[Math.floor(random() * STATUSES.length)]!,
      createdAt: "",
      items,
    });
  }
  // Newer orders have higher numbers: 1 to 24 hours apart, going back from NEWEST.
  let hoursBack = 0;
  for (let i = generated.length - 1; i >= 0; i--) {
    generated[i]!.createdAt = new Date(NEWEST - hoursBack * 3_600_000).toISOString();
    hoursBack += 1 + Math.floor(random() * 24);
  }
  return [...originals, ...generated].sort((a, b) =>
    a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0,
  );
}
