// Loadable counter; no reset, load has priority over counting.
module load_counter8 (
    input  wire       clk,
    input  wire       load,
    input  wire [7:0] d,
    input  wire       enable,
    output reg  [7:0] q
);
    always @(posedge clk) begin
        if (load)
            q <= d;
        else if (enable)
            q <= q + 8'd1;
    end
endmodule
