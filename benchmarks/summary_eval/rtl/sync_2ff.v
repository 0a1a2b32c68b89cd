// Two-flop synchronizer for bringing an asynchronous level into the clk domain.
module sync_2ff #(
    parameter WIDTH = 1
) (
    input  wire             clk,
    input  wire             rst_n,
    input  wire [WIDTH-1:0] async_in,
    output wire [WIDTH-1:0] sync_out
);
    reg [WIDTH-1:0] meta, stable;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            meta   <= {WIDTH{1'b0}};
            stable <= {WIDTH{1'b0}};
        end else begin
            meta   <= async_in;
            stable <= meta;
        end
    end

    assign sync_out = stable;
endmodule
