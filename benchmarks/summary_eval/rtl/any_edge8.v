// Flags every bit of an 8-bit bus that changed since the previous clock.
module any_edge8 (
    input            clk,
    input      [7:0] in,
    output reg [7:0] anyedge
);
    reg [7:0] last_in;

    always @(posedge clk) begin
        last_in <= in;
        anyedge <= in ^ last_in;
    end
endmodule
