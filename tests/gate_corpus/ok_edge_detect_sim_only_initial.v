// accept: an `ifndef SYNTHESIS initial block that prints a banner (simulation only) beside a restyled, equivalent edge detector
module edge_detect (
    input clk,
    input rst_n,
    input a,
    output reg rise,
    output reg down
);
    reg a_d;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) {rise, down, a_d} <= 3'b000;
        else        {rise, down, a_d} <= {a & ~a_d, ~a & a_d, a};
`ifndef SYNTHESIS
    initial $display("edge_detect: simulation model");
`endif
endmodule
