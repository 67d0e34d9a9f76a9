import { describe, expect, it } from "vitest";
import { clientAddressKey } from "./client-address.ts";

describe("clientAddressKey", () => {
  it("keys IPv6 on its /64, in one spelling whatever the input's", () => {
    expect(clientAddressKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(clientAddressKey("2001:0DB8:0001:0002::1")).toBe("2001:db8:1:2::/64");
    expect(clientAddressKey("[2001:db8:1:2::ffff]")).toBe("2001:db8:1:2::/64");
    expect(clientAddressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientAddressKey("2001:db8:1:3::1")).not.toBe(clientAddressKey("2001:db8:1:2::1"));
    expect(clientAddressKey("::1")).toBe("0:0:0:0::/64");
  });

  it("keeps IPv4 as it is, also when IPv4-mapped", () => {
    expect(clientAddressKey("198.51.100.7")).toBe("198.51.100.7");
    expect(clientAddressKey("198.51.100.8")).not.toBe(clientAddressKey("198.51.100.7"));
    expect(clientAddressKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(clientAddressKey("::ffff:c633:6407")).toBe("198.51.100.7");
  });

  it("leaves anything that is not an address as it is", () => {
    expect(clientAddressKey("unknown")).toBe("unknown");
    expect(clientAddressKey("")).toBe("");
    expect(clientAddressKey("2001:db8::1::2")).toBe("2001:db8::1::2");
  });
});
