// screen: $fwrite assembled by nested macros (`WR expands to `CAT($fw, rite)) inside a `synopsys translate_off` region, which Yosys skips and both simulators run
`define CAT(a, b) a``b
`define WR `CAT($fw, rite)
module edge_detect (
    input clk,
    input rst_n,
    input a,
    output reg rise,
    output reg down
);
    reg a0;
    always @(posedge clk or negedge rst_n)
        if (~rst_n) begin
            rise <= 1'b0;
            down <= 1'b0;
            a0   <= 1'b0;
        end else begin
            rise <= a & ~a0;
            down <= ~a & a0;
            a0   <= a;
            // synopsys translate_off
            if (a & ~a0) `WR(32'h8000_0002, "hdlrl-corpus-probe\n");
            // synopsys translate_on
        end
endmodule
