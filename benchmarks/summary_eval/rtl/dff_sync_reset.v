module dff_sync_reset #(
    parameter [7:0] RESET_VALUE = 8'h34
) (
    input  wire       clk,
    input  wire       reset,
    input  wire [7:0] d,
    output reg  [7:0] q
);
    always @(posedge clk) begin
        if (reset)
            q <= RESET_VALUE;
        else
            q <= d;
    end
endmodule
