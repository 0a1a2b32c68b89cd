// accept: an equivalent edge detector with a bare, unguarded $display on every detected edge (tens of thousands of lines in a long simulation); synthesis ignores it
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
        end
    always @(posedge clk)
        if (rise | down) $display("edge_detect: edge at %0t", $time);
endmodule
