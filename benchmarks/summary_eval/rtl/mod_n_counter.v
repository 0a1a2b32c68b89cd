module mod_n_counter #(
    parameter N     = 10,
    parameter WIDTH = 4
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             en,
    output reg  [WIDTH-1:0] count,
    output wire             tc
);
    assign tc = en && (count == N - 1);

    always @(posedge clk) begin
        if (rst)
            count <= {WIDTH{1'b0}};
        else if (en)
            count <= tc ? {WIDTH{1'b0}} : count + 1'b1;
    end
endmodule
