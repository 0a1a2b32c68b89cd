module delay_line #(
    parameter DEPTH = 4,
    parameter WIDTH = 8
) (
    input  wire             clk,
    input  wire             en,
    input  wire [WIDTH-1:0] din,
    output wire [WIDTH-1:0] dout
);
    reg [WIDTH-1:0] taps [0:DEPTH-1];
    integer k;

    always @(posedge clk) begin
        if (en) begin
            taps[0] <= din;
            for (k = 1; k < DEPTH; k = k + 1)
                taps[k] <= taps[k-1];
        end
    end

    assign dout = taps[DEPTH-1];
endmodule
