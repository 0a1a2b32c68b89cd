module reg_srst_ce #(
    parameter WIDTH     = 12,
    parameter RESET_VAL = 12'hFFF
) (
    input  wire             clk,
    input  wire             srst,
    input  wire             ce,
    input  wire [WIDTH-1:0] din,
    output reg  [WIDTH-1:0] dout
);
    always @(posedge clk) begin
        if (srst)
            dout <= RESET_VAL;
        else if (ce)
            dout <= din;
    end
endmodule
