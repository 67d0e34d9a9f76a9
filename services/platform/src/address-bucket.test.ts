import { describe, expect, it } from "vitest";
import { addressBucket } from "./address-bucket.ts";

describe("addressBucket", () => {
  it("keys an IPv4 address on itself", () => {
    expect(addressBucket("192.0.2.17")).toBe("192.0.2.17");
    expect(addressBucket("192.0.2.18")).not.toBe(addressBucket("192.0.2.17"));
  });

  it("keys every address of one IPv6 /64 alike, and different /64s apart", () => {
    const one = addressBucket("2001:db8:1:2:aaaa:bbbb:cccc:dddd");
    expect(one).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:db8:1:2::1")).toBe(one);
    expect(addressBucket("2001:0DB8:0001:0002:ffff:0:0:1")).toBe(one);
    expect(addressBucket("[2001:db8:1:2::9]")).toBe(one);
    expect(addressBucket("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressBucket("2001:db8:1:3::1")).not.toBe(one);
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
  });

  it("keys an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(addressBucket("::ffff:192.0.2.17")).toBe("192.0.2.17");
    expect(addressBucket("::ffff:c000:211")).toBe("192.0.2.17");
  });

  it("puts anything unparsable under one shared key", () => {
    expect(addressBucket("")).toBe("unknown");
    expect(addressBucket("not an address")).toBe("unknown");
    expect(addressBucket("2001:db8::1::2")).toBe("unknown");
  });
});
