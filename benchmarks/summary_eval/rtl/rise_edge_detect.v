module rise_edge_detect (
    input  wire clk,
    input  wire rst_n,
    input  wire sig,
    output wire pulse
);
    reg sig_d;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            sig_d <= 1'b0;
        else
            sig_d <= sig;
    end

    assign pulse = sig & ~sig_d;
endmodule
